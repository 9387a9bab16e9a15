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

	/**
	 * Moves past the next `count` bytes and says where they start. Nothing is copied or allocated
	 * on the way: a block's prints are read here byte by byte (npm run bench, 2f).
	 */
	private skip(count: number, what: string): number {
		const start = this.at;
		const left = this.bytes.length - start;
		if (count > left) this.fail(`${what} is cut short: it needs ${bytes(count)}, and ${left === 1 ? '1 is' : `${left} are`} left`);
		this.at = start + count;
		return start;
	}

	private byte(what: string): number {
		return this.bytes[this.skip(1, what)];
	}

	/** A length, in 4 bytes; `what` names it: "the length of a list". */
	private length(what: string): number {
		return this.bytes.readUInt32BE(this.skip(4, what));
	}

	/** `lengthOf`: what its length byte is called, "the length of a tuple key". */
	private name(pattern: RegExp, what: string, lengthOf: string): string {
		const size = this.byte(lengthOf);
		const start = this.skip(size, what);
		const name = this.bytes.toString('latin1', start, start + size);
		if (size > MAX_NAME_LENGTH || !pattern.test(name)) this.fail(`"${name}" is not a valid ${what}`);
		return name;
	}

	/** 16 bytes, big-endian, unsigned. */
	private integer(what: string): bigint {
		const start = this.skip(16, what);
		return (this.bytes.readBigUInt64BE(start) << 64n) | this.bytes.readBigUInt64BE(start + 8);
	}

	private principal(): string {
		const version = this.byte('a principal');
		if (version > 31) this.fail(`${version} is not an address version`);
		const start = this.skip(20, 'a principal');
		return stacksAddress(version, this.bytes.subarray(start, start + 20));
	}

	value(depth = 0): ClarityValue {
		if (depth > MAX_DEPTH) this.fail(`a value nested deeper than ${MAX_DEPTH} levels`);
		const type = this.byte('a value');
		switch (type) {
			case 0x00:
				return { type: 'int', value: BigInt.asIntN(128, this.integer('an int')) };
			case 0x01:
				return { type: 'uint', value: this.integer('a uint') };
			case 0x02: {
				const size = this.length('the length of a buffer');
				const start = this.skip(size, 'a buffer');
				return { type: 'buffer', hex: `0x${this.bytes.toString('hex', start, start + size)}` };
			}
			case 0x03:
			case 0x04:
				return { type: 'bool', value: type === 0x03 };
			case 0x05:
				return { type: 'principal', principal: this.principal() };
			case 0x06: {
				const address = this.principal();
				return { type: 'principal', principal: `${address}.${this.name(CONTRACT_NAME, 'contract name', 'the length of a contract name')}` };
			}
			case 0x07:
			case 0x08:
			case 0x0a:
				return { type: type === 0x07 ? 'ok' : type === 0x08 ? 'err' : 'some', value: this.value(depth + 1) };
			case 0x09:
				return { type: 'none' };
			case 0x0b: {
				const count = this.length('the length of a list');
				const items: ClarityValue[] = [];
				for (let i = 0; i < count; i++) items.push(this.value(depth + 1));
				return { type: 'list', items };
			}
			case 0x0c: {
				const count = this.length('the length of a tuple');
				const entries: Array<[string, ClarityValue]> = [];
				for (let i = 0; i < count; i++) entries.push([this.name(CLARITY_NAME, 'tuple key', 'the length of a tuple key'), this.value(depth + 1)]);
				// Printed in the order of their names' bytes, as the Stacks node prints them.
				entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
				for (let i = 1; i < entries.length; i++) if (entries[i][0] === entries[i - 1][0]) this.fail(`the tuple key "${entries[i][0]}" comes twice`);
				return { type: 'tuple', entries };
			}
			case 0x0d: {
				const size = this.length('the length of a string-ascii');
				const start = this.skip(size, 'a string-ascii');
				for (let i = start; i < start + size; i++) if (!isAsciiByte(this.bytes[i])) this.fail('a string-ascii holds a byte that is not printable ASCII', i);
				return { type: 'ascii', text: this.bytes.toString('latin1', start, start + size) };
			}
			case 0x0e: {
				const size = this.length('the length of a string-utf8');
				const start = this.skip(size, 'a string-utf8');
				try {
					return { type: 'utf8', text: UTF8.decode(this.bytes.subarray(start, start + size)) };
				} catch {
					return this.fail('a string-utf8 is not valid UTF-8', start);
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

/** The bytes `0x…` spells; undefined when it is not `0x` and whole bytes of hex. */
function bytesOf(hex: string): Buffer | undefined {
	if (!hex.startsWith('0x') || hex.length % 2 !== 0) return undefined;
	// Buffer.from stops at the first character that is not hex: a short buffer means one came.
	const bytes = Buffer.from(hex.slice(2), 'hex');
	return bytes.length * 2 === hex.length - 2 ? bytes : undefined;
}

/**
 * The Clarity value the hex serializes. Throws a ClarityHexError when the text is not hex, or the
 * bytes are not exactly one Clarity value (a type byte that is none, a value cut short, bytes left over).
 */
export function readClarityHex(hex: string): ClarityValue {
	const shown = `"${hex.length > 24 ? `${hex.slice(0, 24)}…` : hex}"`;
	const bytes = bytesOf(hex);
	if (bytes === undefined) throw new ClarityHexError(`${shown} is not hex (0x, then pairs of the digits 0-9 and a-f)`);
	if (bytes.length === 0) throw new ClarityHexError('0x holds no value');
	const reader = new Reader(bytes, shown);
	const value = reader.value();
	reader.end();
	return value;
}
