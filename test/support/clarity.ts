/**
 * Clarity values for the tests, read and written by the Stacks libraries, never by the package:
 * - generated ones, each built with @stacks/transactions, with the JSON docs/items.md says it reads
 *   as, its binary form (`Cl.serialize`) and its repr as Hiro prints it (stacks-encoding-native-js,
 *   the Stacks node's own printer, which the service's `repr` comes from);
 * - the JSON of any binary form, read by @stacks/transactions (`expectedJson`).
 * The package's readers are checked against these.
 */
import { type ClarityValue as CV, Cl } from '@stacks/transactions';
import { c32address } from 'c32check';
import fc from 'fast-check';
import { decodeClarityValueToRepr } from 'stacks-encoding-native-js';

import type { ClarityJson } from '../../nodes/shared/clarity/write';

export interface GeneratedValue {
	cv: CV;
	json: ClarityJson;
}

export interface Printed extends GeneratedValue {
	/** `0x` and the binary form, lowercase. */
	hex: string;
	/** As the Stacks node prints the value. */
	repr: string;
}

const hexOf = (bytes: Uint8Array) => `0x${Buffer.from(bytes).toString('hex')}`;

/** A standard address of either network, single- or multi-signature. */
export const address = fc
	.tuple(fc.constantFrom(22, 20, 26, 21), fc.uint8Array({ minLength: 20, maxLength: 20 }))
	.map(([version, hash]) => c32address(version, Buffer.from(hash).toString('hex')));
const contractName = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_-]{0,39}$/);
/** ClarityName, as tuple keys are. */
const tupleKey = fc.oneof(
	{ weight: 10, arbitrary: fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_!?+<>=/*-]{0,11}$/) },
	{ weight: 1, arbitrary: fc.constantFrom('-', '+', '=', '/', '*', '<', '>', '<=', '>=') },
);

/** ASCII strings hold printable characters and whitespace (tab, newline, form feed, return, space). */
const asciiChar = fc.oneof(
	{ weight: 1, arbitrary: fc.constantFrom('"', '\\', "'", '\t', '\n', '\r', '\f', '(', ')', ' ') },
	{ weight: 4, arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)) },
);
const utf8Char = fc.oneof(
	{ weight: 2, arbitrary: asciiChar },
	{ weight: 1, arbitrary: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)) },
	{ weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
	{ weight: 1, arbitrary: fc.constantFrom('é', '€', '😀', '中', 'ß', '\u00a0', '\u{10ffff}') },
);

const leaf: fc.Arbitrary<GeneratedValue> = fc.oneof(
	fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }).map((n) => ({ cv: Cl.uint(n), json: String(n) })),
	fc.bigInt({ min: -(2n ** 127n), max: 2n ** 127n - 1n }).map((n) => ({ cv: Cl.int(n), json: String(n) })),
	fc.boolean().map((b) => ({ cv: Cl.bool(b), json: b })),
	fc.constant({ cv: Cl.none(), json: null }),
	fc.uint8Array({ maxLength: 34 }).map((bytes) => ({ cv: Cl.buffer(bytes), json: hexOf(bytes) })),
	fc.string({ unit: asciiChar, maxLength: 24 }).map((text) => ({ cv: Cl.stringAscii(text), json: text })),
	fc.string({ unit: utf8Char, maxLength: 16 }).map((text) => ({ cv: Cl.stringUtf8(text), json: text })),
	address.map((principal) => ({ cv: Cl.standardPrincipal(principal), json: principal })),
	fc.tuple(address, contractName).map(([principal, name]) => ({ cv: Cl.contractPrincipal(principal, name), json: `${principal}.${name}` })),
);

/** A Clarity value of any type, nested up to 5 levels, and the JSON it reads as. */
export const clarityValue: fc.Arbitrary<GeneratedValue> = fc.letrec<{ value: GeneratedValue }>((tie) => ({
	value: fc.oneof(
		{ depthSize: 'small', maxDepth: 5 },
		leaf,
		tie('value').map((v) => ({ cv: Cl.some(v.cv), json: v.json })),
		tie('value').map((v) => ({ cv: Cl.ok(v.cv), json: { ok: v.json } })),
		tie('value').map((v) => ({ cv: Cl.error(v.cv), json: { err: v.json } })),
		fc.array(tie('value'), { maxLength: 4 }).map((items) => ({ cv: Cl.list(items.map((v) => v.cv)), json: items.map((v) => v.json) })),
		fc.uniqueArray(fc.tuple(tupleKey, tie('value')), { selector: ([key]) => key, minLength: 1, maxLength: 4 }).map((entries) => ({
			cv: Cl.tuple(Object.fromEntries(entries.map(([key, v]) => [key, v.cv]))),
			json: Object.fromEntries(entries.map(([key, v]) => [key, v.json])),
		})),
	),
})).value;

/** The value with its binary form and Hiro's repr of it. */
export function printed(value: GeneratedValue): Printed {
	const hex = `0x${Cl.serialize(value.cv)}`;
	return { ...value, hex, repr: decodeClarityValueToRepr(hex) };
}

/** A Clarity value of any type with its binary form and repr. */
export const printedValue: fc.Arbitrary<Printed> = clarityValue.map(printed);

/** The JSON docs/items.md says a value reads as, from @stacks/transactions' reading of its binary form. */
export function jsonOfCv(cv: CV): ClarityJson {
	switch (cv.type) {
		case 'int':
		case 'uint':
			return String(cv.value);
		case 'true':
		case 'false':
			return cv.type === 'true';
		case 'buffer':
			return `0x${cv.value}`;
		case 'ascii':
		case 'utf8':
		case 'address':
		case 'contract':
			return cv.value;
		case 'none':
			return null;
		case 'some':
			return jsonOfCv(cv.value);
		case 'ok':
		case 'err':
			return { [cv.type]: jsonOfCv(cv.value) };
		case 'list':
			return cv.value.map(jsonOfCv);
		case 'tuple':
			return Object.fromEntries(Object.entries(cv.value).map(([key, value]) => [key, jsonOfCv(value)]));
		default:
			throw new Error(`a Clarity type the tests do not know: ${(cv as { type: string }).type}`);
	}
}

/** The JSON of a binary form (`0x…`), as @stacks/transactions reads it. */
export const expectedJson = (hex: string): ClarityJson => jsonOfCv(Cl.deserialize(hex));
