/**
 * A Clarity value's repr, the text the service sends when a hook asks it to decode values
 * (`(tuple (amount u100) (event "mint"))`), read straight into the JSON of write.ts.
 * It reads the text directly, with no value tree in between: a block of prints feels the
 * difference (npm run bench, 2d-2e).
 *
 * Written by hand: no library reads this text, and a community node may not have runtime
 * dependencies. The binary form, which the service sends otherwise, is read by binary.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import type { ClarityJson } from './write';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The character of a `\u{…}` escape. Stacks prints a character beyond ASCII as its UTF-8 bytes
 * in hex (é is `\u{c3a9}`, 😀 `\u{f09f9880}`); Clarity source writes the code point (`\u{e9}`),
 * read as such when the hex is not the UTF-8 of one character.
 */
function unicodeEscape(hex: string): string | undefined {
	if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) return undefined;
	if (hex.length >= 4 && hex.length % 2 === 0) {
		try {
			const char = UTF8.decode(Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16)));
			if ([...char].length === 1) return char;
		} catch {
			// Not UTF-8: a code point.
		}
	}
	const code = parseInt(hex, 16);
	return code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/**
 * The characters `/\s/` matches (ECMAScript's WhiteSpace and LineTerminator), by code unit: a
 * regular expression per character allocates, which a block of prints feels (npm run bench, 2d-2e).
 */
function isSpace(code: number): boolean {
	if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
	if (code < 0xa0) return false;
	return (
		code === 0xa0 ||
		code === 0x1680 ||
		(code >= 0x2000 && code <= 0x200a) ||
		code === 0x2028 ||
		code === 0x2029 ||
		code === 0x202f ||
		code === 0x205f ||
		code === 0x3000 ||
		code === 0xfeff
	);
}

/** The characters that end a bare word: `[\s(){},:"]`. */
const isDelimiter = (code: number): boolean =>
	code === 0x28 || code === 0x29 || code === 0x7b || code === 0x7d || code === 0x2c || code === 0x3a || code === 0x22 || isSpace(code);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

class Reader {
	private at = 0;

	constructor(private readonly text: string) {}

	private space(): void {
		while (this.at < this.text.length && isSpace(this.text.charCodeAt(this.at))) this.at++;
	}

	private fail(what: string): never {
		throw new Error(`${what} at character ${this.at} of the Clarity value`);
	}

	private expect(char: string): void {
		this.space();
		if (this.text[this.at] !== char) this.fail(`expected "${char}"`);
		this.at++;
	}

	private peek(): string {
		this.space();
		return this.text[this.at] ?? '';
	}

	/** A bare word: a keyword, a number, a principal, a buffer, or a tuple key. */
	private word(): string {
		this.space();
		const start = this.at;
		while (this.at < this.text.length && !isDelimiter(this.text.charCodeAt(this.at))) this.at++;
		if (this.at === start) this.fail('expected a value');
		return this.text.slice(start, this.at);
	}

	private string(): string {
		this.expect('"');
		let out = '';
		for (;;) {
			// The characters up to the next quote or escape, at once.
			let run = this.at;
			while (run < this.text.length && this.text.charCodeAt(run) !== QUOTE && this.text.charCodeAt(run) !== BACKSLASH) run++;
			if (run > this.at) {
				out += this.text.slice(this.at, run);
				this.at = run;
			}
			const char = this.text[this.at++];
			if (char === undefined) this.fail('unterminated string');
			if (char === '"') return out;
			if (char !== '\\') {
				out += char;
				continue;
			}
			const escaped = this.text[this.at++];
			if (escaped === 'n') out += '\n';
			else if (escaped === 't') out += '\t';
			else if (escaped === 'r') out += '\r';
			else if (escaped === 'x' && /^[0-9a-fA-F]{2}$/.test(this.text.slice(this.at, this.at + 2))) {
				// A byte that is not printable (a form feed, a control character): \x0c
				out += String.fromCharCode(parseInt(this.text.slice(this.at, this.at + 2), 16));
				this.at += 2;
			} else if (escaped === 'u' && this.text[this.at] === '{') {
				const end = this.text.indexOf('}', this.at);
				if (end < 0) this.fail('unterminated escape');
				out += unicodeEscape(this.text.slice(this.at + 1, end)) ?? this.fail('bad escape');
				this.at = end + 1;
			} else if (escaped === undefined) this.fail('unterminated string');
			else out += escaped;
		}
	}

	private entries(close: string, separator: string | undefined, read: () => [string, ClarityJson]): IDataObject {
		const object: { [key: string]: ClarityJson } = {};
		while (this.peek() !== close) {
			const [key, value] = read();
			object[key] = value;
			if (separator && this.peek() === separator) this.at++;
		}
		this.at++;
		return object as IDataObject;
	}

	value(): ClarityJson {
		const next = this.peek();
		if (next === '"') return this.string();
		if (next === '{') {
			// Clarity 2's tuple literal: {amount: u100, event: "mint"}
			this.at++;
			return this.entries('}', ',', () => {
				const key = this.word();
				this.expect(':');
				return [key, this.value()];
			}) as { [key: string]: ClarityJson };
		}
		if (next === '(') {
			this.at++;
			const head = this.word();
			if (head === 'tuple') {
				return this.entries(')', undefined, () => {
					this.expect('(');
					const key = this.word();
					const value = this.value();
					this.expect(')');
					return [key, value];
				}) as { [key: string]: ClarityJson };
			}
			const items: ClarityJson[] = [];
			while (this.peek() !== ')') {
				if (this.peek() === '') this.fail('unterminated list');
				items.push(this.value());
			}
			this.at++;
			if (head === 'list') return items;
			if (items.length !== 1) this.fail(`"${head}" takes one value`);
			if (head === 'some') return items[0];
			if (head === 'ok' || head === 'err') return { [head]: items[0] };
			this.fail(`unknown form "${head}"`);
		}
		if (next === 'u' && this.text[this.at + 1] === '"') {
			this.at++; // a UTF-8 string: u"…"
			return this.string();
		}
		const word = this.word();
		if (word === 'true' || word === 'false') return word === 'true';
		if (word === 'none') return null;
		if (/^u\d+$/.test(word)) return word.slice(1);
		if (/^-?\d+$/.test(word)) return word;
		if (/^0x[0-9a-fA-F]*$/.test(word)) return word;
		if (/^'?S[0-9A-Z]{20,}(\.[a-zA-Z][\w-]*)?$/.test(word)) return word.replace(/^'/, '');
		return this.fail(`unknown value "${word}"`);
	}

	end(): void {
		if (this.peek() !== '') this.fail('unexpected text after the value');
	}
}

/** The JSON of a Clarity `repr`; undefined when it is not one this reads. */
export function jsonOfRepr(repr: string): ClarityJson | undefined {
	try {
		const reader = new Reader(repr);
		const value = reader.value();
		reader.end();
		return value;
	} catch {
		return undefined;
	}
}
