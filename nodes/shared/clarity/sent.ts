/**
 * Clarity values as the service sends them, in whichever encoding they come:
 * - `{ "hex": "0x0703", "repr": "(ok true)" }` when the hook asks the service to decode values;
 * - the hex alone, `"0x0703"`, by default (Hiro's options reference: `decode_clarity_values`
 *   defaults to false, and its payload example carries a print's value as `"0x09"`);
 * - a repr alone, `"u42"`, as Hiro's filter docs write an NFT's id.
 * Each reads to the same JSON (write.ts), so a workflow sees the same item whichever came.
 */
import { type ClarityValue, readClarityHex } from './binary';
import { jsonOfRepr } from './repr';
import { type ClarityJson, toJson, toRepr } from './write';

export interface ReadValue {
	/** The value as JSON; undefined when what came is not a Clarity value. */
	json: ClarityJson | undefined;
	/** The binary form as sent; null when only a repr came. */
	hex: string | null;
	/** The repr as sent, else printed from the binary form as the Stacks node prints it. */
	repr: string | null;
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function tree(hex: string): ClarityValue | undefined {
	try {
		return readClarityHex(hex);
	} catch {
		return undefined;
	}
}

/**
 * The value the service sent, read: from its repr when one came (the faster read), else from its
 * hex. What came is kept as it came; a repr missing beside the hex is printed from it.
 */
export function readSentValue(sent: unknown): ReadValue {
	const sentText = textOf(sent);
	const { hex, repr } = typeof sent === 'object' && sent !== null ? (sent as { hex?: unknown; repr?: unknown }) : {};
	// A text that starts with 0x is a binary form (a repr alone never does, but a buffer's: nftIdOf).
	const sentHex = sentText === undefined ? textOf(hex) : sentText.startsWith('0x') ? sentText : undefined;
	const sentRepr = sentText === undefined ? textOf(repr) : sentHex === undefined ? sentText : undefined;
	const json = sentRepr === undefined ? undefined : jsonOfRepr(sentRepr);
	if (json !== undefined || sentHex === undefined) return { json, hex: sentHex ?? null, repr: sentRepr ?? null };
	const value = tree(sentHex);
	return { json: value && toJson(value), hex: sentHex, repr: sentRepr ?? (value ? toRepr(value) : null) };
}

/**
 * An NFT's id as text, the same whichever way it came (`u350610`, its binary form
 * `0x0100000000000000000000000000055992`, or the number 350610): an integer id is its digits
 * (`350610`), any other id its repr (`(tuple (name 0x616c696365) (namespace 0x627463))`).
 * A text that is hex but not one Clarity value is a buffer id's repr, and stays as it came. A
 * buffer id whose bytes happen to be a whole Clarity value cannot be told from that value's hex.
 */
export function nftIdOf(sent: unknown): string | undefined {
	if (typeof sent === 'number') return Number.isSafeInteger(sent) ? String(sent) : undefined;
	if (typeof sent === 'object' && sent !== null) {
		const { hex, repr } = sent as { hex?: unknown; repr?: unknown };
		return nftIdOf(textOf(repr) ?? textOf(hex));
	}
	if (typeof sent !== 'string') return undefined;
	if (/^u\d+$/.test(sent)) return sent.slice(1);
	const value = sent.startsWith('0x') ? tree(sent) : undefined;
	if (value === undefined) return sent;
	return value.type === 'int' || value.type === 'uint' ? value.value.toString() : toRepr(value);
}

/**
 * A contract call's arguments as JSON, in order: from the list of `{hex, repr, name, type}` the
 * service sends when it decodes values, or from the one hex it sends otherwise (the arguments
 * serialized as a Clarity list). An argument that does not read is null; null when none came.
 */
export function readArguments(sent: unknown): ClarityJson[] | null {
	if (Array.isArray(sent)) return sent.map((arg) => readSentValue(arg).json ?? null);
	if (typeof sent !== 'string') return null;
	const value = tree(sent);
	return value?.type === 'list' ? value.items.map(toJson) : null;
}
