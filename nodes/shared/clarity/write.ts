/**
 * A Clarity value written out for a workflow, as JSON and as its repr (the text the Stacks node
 * prints, which is what the service sends as `repr` when a hook asks it to decode values).
 *
 * The JSON is the one docs/items.md describes: a tuple is an object, a list an array, integers are
 * strings (a uint128 does not fit a JavaScript number), `none` is null, `(some x)` is x, `(ok x)`
 * and `(err x)` are `{ ok: x }` and `{ err: x }`, strings and buffers (`0x…`) are strings, and a
 * principal is its address.
 */
import type { ClarityValue } from './binary';

export type ClarityJson = string | boolean | null | ClarityJson[] | { [key: string]: ClarityJson };

export function toJson(value: ClarityValue): ClarityJson {
	switch (value.type) {
		case 'int':
		case 'uint':
			return value.value.toString();
		case 'bool':
			return value.value;
		case 'buffer':
			return value.hex;
		case 'ascii':
		case 'utf8':
			return value.text;
		case 'principal':
			return value.principal;
		case 'ok':
		case 'err':
			return { [value.type]: toJson(value.value) };
		case 'some':
			return toJson(value.value);
		case 'none':
			return null;
		case 'list':
			return value.items.map(toJson);
		case 'tuple': {
			const object: { [key: string]: ClarityJson } = {};
			for (const [key, item] of value.entries) object[key] = toJson(item);
			return object;
		}
	}
}

/** One byte of a string, escaped as Rust's `std::ascii::escape_default` escapes it. */
function escapeByte(byte: number): string {
	switch (byte) {
		case 0x09:
			return '\\t';
		case 0x0a:
			return '\\n';
		case 0x0d:
			return '\\r';
		case 0x22:
			return '\\"';
		case 0x27:
			return "\\'";
		case 0x5c:
			return '\\\\';
		default:
			return byte >= 0x20 && byte <= 0x7e ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
	}
}

/** A string-utf8's character: ASCII escaped as above; any other as `\u{…}` of its UTF-8 bytes (é is `\u{c3a9}`). */
function escapeCharacter(char: string): string {
	const code = char.codePointAt(0)!;
	return code < 0x80 ? escapeByte(code) : `\\u{${Buffer.from(char, 'utf8').toString('hex')}}`;
}

/** Printable ASCII that needs no escape: anything else goes through escapeByte. */
const PLAIN = /^[\x20\x21\x23-\x26\x28-\x5b\x5d-\x7e]*$/;

/** The repr, exactly as the Stacks node prints the value: `(tuple (amount u100) (event "mint"))`. */
export function toRepr(value: ClarityValue): string {
	switch (value.type) {
		case 'int':
			return value.value.toString();
		case 'uint':
			return `u${value.value}`;
		case 'bool':
			return value.value ? 'true' : 'false';
		case 'buffer':
			return value.hex;
		case 'ascii':
			return PLAIN.test(value.text) ? `"${value.text}"` : `"${Array.from(value.text, (char) => escapeByte(char.charCodeAt(0))).join('')}"`;
		case 'utf8':
			return PLAIN.test(value.text) ? `u"${value.text}"` : `u"${Array.from(value.text, escapeCharacter).join('')}"`;
		case 'principal':
			return `'${value.principal}`;
		case 'ok':
		case 'err':
		case 'some':
			return `(${value.type} ${toRepr(value.value)})`;
		case 'none':
			return 'none';
		case 'list': {
			let repr = '(list';
			for (const item of value.items) repr += ` ${toRepr(item)}`;
			return `${repr})`;
		}
		case 'tuple': {
			let repr = '(tuple';
			for (const [key, item] of value.entries) repr += ` (${key} ${toRepr(item)})`;
			return `${repr})`;
		}
	}
}
