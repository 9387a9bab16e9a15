/* eslint-disable @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Clarity values as the service sends them: the binary form, serialized by the Stacks libraries
 * (@stacks/transactions), and the repr as the service prints it when a hook asks it to decode,
 * printed by Hiro's own decoder (stacks-encoding-native-js, the Stacks node's printer).
 *
 * A test gives a value as its repr. @stacks/transactions' own parser (`Cl.parse`) refuses tuple
 * keys with a dash (`pool-id`), which most contracts use, so the repr is read here, apart from
 * the package's reader, and each part built with `Cl`.
 */
import { type ClarityValue, Cl } from '@stacks/transactions';
import { decodeClarityValueToRepr } from 'stacks-encoding-native-js';

export interface ClarityPair {
	hex: string;
	repr: string;
}

const HEX = /^0x(?:[0-9a-fA-F]{2})+$/;

/** A repr, read into a value @stacks/transactions serializes. */
class ReprReader {
	private at = 0;

	constructor(private readonly text: string) {}

	private fail(what: string): never {
		throw new Error(`${what} at character ${this.at}`);
	}

	private space(): void {
		while (/\s/.test(this.text[this.at] ?? '')) this.at++;
	}

	/** The text `pattern` matches here (a sticky copy of it: anchored at this character). */
	private take(pattern: RegExp, what: string): string {
		this.space();
		const sticky = new RegExp(pattern.source, 'y');
		sticky.lastIndex = this.at;
		const found = sticky.exec(this.text);
		if (!found) this.fail(`expected ${what}`);
		this.at += found[0].length;
		return found[0];
	}

	/** The text of a quoted string, its escapes undone; `utf8`: `\u{…}` holds a character's UTF-8 bytes. */
	private quoted(utf8: boolean): string {
		const body = this.take(/"(?:[^"\\]|\\.)*"/, 'a string').slice(1, -1);
		const bytes: number[] = [];
		for (let i = 0; i < body.length; i++) {
			if (body[i] !== '\\') {
				bytes.push(...Buffer.from(body[i], 'utf8'));
				continue;
			}
			const next = body[++i];
			const named: Record<string, number> = { n: 0x0a, t: 0x09, r: 0x0d, '"': 0x22, "'": 0x27, '\\': 0x5c };
			if (next in named) bytes.push(named[next]);
			else if (next === 'x') bytes.push(parseInt(body.slice(i + 1, (i += 2) + 1), 16));
			else if (next === 'u' && utf8) {
				const end = body.indexOf('}', i);
				bytes.push(...Buffer.from(body.slice(i + 2, end), 'hex'));
				i = end;
			} else this.fail(`an escape \\${next}`);
		}
		return Buffer.from(bytes).toString(utf8 ? 'utf8' : 'latin1');
	}

	value(): ClarityValue {
		this.space();
		const rest = this.text.slice(this.at);
		if (rest.startsWith('"')) return Cl.stringAscii(this.quoted(false));
		if (rest.startsWith('u"')) {
			this.at++;
			return Cl.stringUtf8(this.quoted(true));
		}
		if (rest.startsWith('{')) {
			// Clarity 2's tuple literal: {amount: u100, event: "mint"}
			this.at++;
			const entries: Record<string, ClarityValue> = {};
			for (this.space(); this.text[this.at] !== '}'; this.space()) {
				if (this.at >= this.text.length) this.fail('an unclosed tuple');
				const key = this.take(/[^\s:,{}]+/, 'a key');
				this.take(/:/, ':');
				entries[key] = this.value();
				this.space();
				if (this.text[this.at] === ',') this.at++;
			}
			this.at++;
			return Cl.tuple(entries);
		}
		if (rest.startsWith('(')) {
			this.at++;
			const head = this.take(/[a-z]+/, 'a form');
			if (head === 'tuple') {
				const entries: Record<string, ClarityValue> = {};
				while (this.take(/[()]/, '( or )') === '(') {
					const key = this.take(/[^\s()]+/, 'a key');
					entries[key] = this.value();
					this.take(/\)/, ')');
				}
				return Cl.tuple(entries);
			}
			const items: ClarityValue[] = [];
			for (this.space(); this.text[this.at] !== ')'; this.space()) {
				if (this.at >= this.text.length) this.fail('an unclosed form');
				items.push(this.value());
			}
			this.at++;
			if (head === 'list') return Cl.list(items);
			if (items.length !== 1) this.fail(`(${head} …) with ${items.length} values`);
			if (head === 'some') return Cl.some(items[0]);
			if (head === 'ok') return Cl.ok(items[0]);
			if (head === 'err') return Cl.error(items[0]);
			return this.fail(`a form "${head}"`);
		}
		const word = this.take(/[^\s(){},]+/, 'a value');
		if (word === 'true' || word === 'false') return Cl.bool(word === 'true');
		if (word === 'none') return Cl.none();
		if (/^u\d+$/.test(word)) return Cl.uint(BigInt(word.slice(1)));
		if (/^-?\d+$/.test(word)) return Cl.int(BigInt(word));
		if (/^0x(?:[0-9a-fA-F]{2})*$/.test(word)) return Cl.bufferFromHex(word.slice(2));
		const principal = /^'?(S[0-9A-Z]+)(?:\.([a-zA-Z][\w-]*))?$/.exec(word);
		if (principal) return principal[2] ? Cl.contractPrincipal(principal[1], principal[2]) : Cl.standardPrincipal(principal[1]);
		return this.fail(`"${word}", which is no Clarity value`);
	}

	end(): void {
		this.space();
		if (this.at < this.text.length) this.fail('more text after the value');
	}
}

/** The binary form of a value given as its repr or its binary form (lower-cased). */
function hexOf(value: string): string {
	if (HEX.test(value)) return value.toLowerCase();
	const reader = new ReprReader(value);
	const cv = reader.value();
	reader.end();
	return `0x${Cl.serialize(cv)}`;
}

/**
 * A value given as its repr (`(tuple (event "mint") (amount u100))`) or its binary form (`0x0c…`),
 * with both. The repr is Hiro's printing, so a tuple's keys come in the node's order. Throws, naming
 * the text, when it is neither. Text that looks like hex is taken as a binary form: give a buffer
 * as its binary form (`0x02…`), not as its repr.
 */
export function clarityPair(value: string): ClarityPair {
	try {
		const hex = hexOf(value);
		return { hex, repr: reprOf(hex) };
	} catch (error) {
		throw new Error(`${JSON.stringify(value)} is neither a Clarity value's repr nor its binary form: ${error instanceof Error ? error.message : String(error)}`);
	}
}

/**
 * The repr of a binary form, as Hiro prints it. The form is read by @stacks/transactions first:
 * Hiro's decoder (1.0.0) never returns on some bytes that are no Clarity value (`0x43…`).
 */
export function reprOf(hex: string): string {
	Cl.deserialize(hex);
	return decodeClarityValueToRepr(hex);
}

/** The binary form of a list of values, as the service sends a call's arguments when it does not decode them. */
export function listHex(hexes: readonly string[]): string {
	const count = Buffer.alloc(4);
	count.writeUInt32BE(hexes.length);
	return `0x0b${count.toString('hex')}${hexes.map((hex) => hex.slice(2)).join('')}`;
}

/** The binary form of an NFT id given as a repr (`u42`); no repr is printed for it. */
export const serialized = (repr: string): string => hexOf(repr);
