/**
 * A Clarity value from its binary form, the hex the service sends when a hook does not ask it
 * to decode values (`0x0c…` for a tuple). The form is SIP-005's: one type byte, then the
 * value's bytes. For example, `0x0703` is `(ok true)`, and `0x0100000000000000000000000000055992`
 * is `u350610`.
 *
 * Written by hand: the library that reads it (@stacks/transactions) would be a runtime
 * dependency, which a community node may not have. The tests compare this reader with it.
 */
import { stacksAddress } from '../principal';

/** A Clarity value, as the binary form and the repr both describe it. */
export type ClarityValue =
	| { type: 'int' | 'uint'; value: bigint }
	| { type: 'bool'; value: boolean }
	| { type: 'buffer'; hex: string }
	| { type: 'ascii' | 'utf8'; text: string }
	| { type: 'principal'; principal: string }
	| { type: 'ok' | 'err' | 'some'; value: ClarityValue }
	| { type: 'none' }
	| { type: 'list'; items: ClarityValue[] }
	| { type: 'tuple'; entries: Array<[string, ClarityValue]> };

/** Hex that is not one whole Clarity value. The message says where it went wrong. */
export class ClarityHexError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ClarityHexError';
	}
}

/** Clarity itself allows 32 levels; this leaves room and stops a hostile value before the stack ends. */
const MAX_DEPTH = 64;

/** Tuple keys (ClarityName) and contract names, as Clarity allows them. */
const CLARITY_NAME = /^(?:[a-zA-Z][a-zA-Z0-9_!?+<>=/*-]*|[-+=/*]|[<>]=?)$/;
const CONTRACT_NAME = /^(?:[a-zA-Z][a-zA-Z0-9_-]*|__transient)$/;
const MAX_NAME_LENGTH = 128;

/** The bytes string-ascii allows: printable ASCII and whitespace. */
const isAsciiByte = (byte: number): boolean => (byte >= 0x20 && byte <= 0x7e) || byte === 0x09 || byte === 0x0a || byte === 0x0c || byte === 0x0d;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

const bytes = (count: number): string => (count === 1 ? '1 byte' : `${count} bytes`);

class Reader {
	private at = 0;

	/** `shown`: the hex as the messages quote it. */
	constructor(
		private readonly bytes: Buffer,
		private readonly shown: string,
	) {}

	private fail(what: string, at = this.at): never {
		throw new ClarityHexError(`${this.shown} is not a Clarity value: ${what} (at byte ${at})`);
	}

	private take(count: number, what: string): Buffer {
		const left = this.bytes.length - this.at;
		if (count > left) this.fail(`${what} is cut short: it needs ${bytes(count)}, and ${left === 1 ? '1 is' : `${left} are`} left`);
		const taken = this.bytes.subarray(this.at, this.at + count);
		this.at += count;
		return taken;
	}

	private length(what: string): number {
		return this.take(4, `the length of ${what}`).readUInt32BE(0);
	}

	private name(pattern: RegExp, what: string): string {
		const size = this.take(1, `the length of ${what}`)[0];
		const name = this.take(size, what).toString('latin1');
		if (size > MAX_NAME_LENGTH || !pattern.test(name)) this.fail(`"${name}" is not a valid ${what}`);
		return name;
	}

	private principal(): string {
		const version = this.take(1, 'a principal')[0];
		if (version > 31) this.fail(`${version} is not an address version`);
		return stacksAddress(version, this.take(20, 'a principal'));
	}

	value(depth = 0): ClarityValue {
		if (depth > MAX_DEPTH) this.fail(`a value nested deeper than ${MAX_DEPTH} levels`);
		const type = this.take(1, 'a value')[0];
		switch (type) {
			case 0x00:
				return { type: 'int', value: BigInt.asIntN(128, BigInt(`0x${this.take(16, 'an int').toString('hex')}`)) };
			case 0x01:
				return { type: 'uint', value: BigInt(`0x${this.take(16, 'a uint').toString('hex')}`) };
			case 0x02:
				return { type: 'buffer', hex: `0x${this.take(this.length('a buffer'), 'a buffer').toString('hex')}` };
			case 0x03:
			case 0x04:
				return { type: 'bool', value: type === 0x03 };
			case 0x05:
				return { type: 'principal', principal: this.principal() };
			case 0x06: {
				const address = this.principal();
				return { type: 'principal', principal: `${address}.${this.name(CONTRACT_NAME, 'contract name')}` };
			}
			case 0x07:
			case 0x08:
			case 0x0a:
				return { type: type === 0x07 ? 'ok' : type === 0x08 ? 'err' : 'some', value: this.value(depth + 1) };
			case 0x09:
				return { type: 'none' };
			case 0x0b: {
				const count = this.length('a list');
				const items: ClarityValue[] = [];
				for (let i = 0; i < count; i++) items.push(this.value(depth + 1));
				return { type: 'list', items };
			}
			case 0x0c: {
				const count = this.length('a tuple');
				const entries: Array<[string, ClarityValue]> = [];
				for (let i = 0; i < count; i++) entries.push([this.name(CLARITY_NAME, 'tuple key'), this.value(depth + 1)]);
				// Printed in the order of their names' bytes, as the Stacks node prints them.
				entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
				for (let i = 1; i < entries.length; i++) if (entries[i][0] === entries[i - 1][0]) this.fail(`the tuple key "${entries[i][0]}" comes twice`);
				return { type: 'tuple', entries };
			}
			case 0x0d: {
				const bytes = this.take(this.length('a string-ascii'), 'a string-ascii');
				if (!bytes.every(isAsciiByte)) this.fail('a string-ascii holds a byte that is not printable ASCII');
				return { type: 'ascii', text: bytes.toString('latin1') };
			}
			case 0x0e: {
				const bytes = this.take(this.length('a string-utf8'), 'a string-utf8');
				try {
					return { type: 'utf8', text: UTF8.decode(bytes) };
				} catch {
					return this.fail('a string-utf8 is not valid UTF-8');
				}
			}
			default:
				return this.fail(`0x${type.toString(16).padStart(2, '0')} is not a Clarity type`, this.at - 1);
		}
	}

	end(): void {
		const left = this.bytes.length - this.at;
		if (left > 0) this.fail(`${bytes(left)} ${left === 1 ? 'follows' : 'follow'} the value`);
	}
}

const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;

/** Whether `text` has the look of a serialized value: `0x`, then whole bytes of hex. */
export const isHex = (text: string): boolean => HEX.test(text);

/**
 * The Clarity value the hex serializes. Throws a ClarityHexError when the text is not hex, or the
 * bytes are not exactly one Clarity value (a type byte that is none, a value cut short, bytes left over).
 */
export function readClarityHex(hex: string): ClarityValue {
	const shown = `"${hex.length > 24 ? `${hex.slice(0, 24)}…` : hex}"`;
	if (!isHex(hex)) throw new ClarityHexError(`${shown} is not hex (0x, then pairs of the digits 0-9 and a-f)`);
	if (hex.length === 2) throw new ClarityHexError('0x holds no value');
	const reader = new Reader(Buffer.from(hex.slice(2), 'hex'), shown);
	const value = reader.value();
	reader.end();
	return value;
}
