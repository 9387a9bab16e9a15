/* eslint-disable no-console -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Properties of the package's Clarity readers (nodes/shared/clarity/), over values generated with
 * @stacks/transactions (test/support/clarityArbitraries.ts):
 * - the binary form (`Cl.serialize`, what the service sends by default) reads as the value's JSON;
 * - the repr printed from it is the Stacks node's own, as Hiro's decoder prints it;
 * - that repr (what the service sends when a hook asks it to decode) reads as the same JSON;
 * - hex that is not one Clarity value is refused, saying where it went wrong;
 * - an NFT id reads the same whether it came as its repr, its binary form or a plain number.
 */
import { Cl } from '@stacks/transactions';
import fc from 'fast-check';

import { ClarityHexError, readClarityHex } from '../../../nodes/shared/clarity/binary';
import { jsonOfRepr } from '../../../nodes/shared/clarity/repr';
import { nftIdOf, readArguments, readSentValue } from '../../../nodes/shared/clarity/sent';
import { toJson, toRepr } from '../../../nodes/shared/clarity/write';
import { printedValue } from '../../support/clarity';
import { propertyParameters, replayHint } from '../../support/properties';

const RUNS = 2000;

describe('the binary form (readClarityHex)', () => {
	it(`reads ${RUNS.toLocaleString('en')} values serialized by @stacks/transactions as their JSON, and prints each as Hiro prints it`, () => {
		const seen = { values: 0, bytes: 0, strings: 0, tuples: 0 };
		fc.assert(
			fc.property(printedValue, ({ hex, repr, json }) => {
				const value = readClarityHex(hex);
				expect(toJson(value)).toEqual(json);
				expect(toRepr(value)).toBe(repr);
				// Upper-case hex reads the same.
				expect(toJson(readClarityHex(`0x${hex.slice(2).toUpperCase()}`))).toEqual(json);
				seen.values++;
				seen.bytes = Math.max(seen.bytes, (hex.length - 2) / 2);
				if (/\\[xu'"\\]/.test(repr)) seen.strings++;
				if (repr.includes('(tuple')) seen.tuples++;
			}),
			propertyParameters(RUNS),
		);
		console.log(`binary form: ${seen.values} values read, the longest ${seen.bytes} bytes, ${seen.strings} with escaped characters, ${seen.tuples} with tuples; ${replayHint()}`);
	});

	it(`refuses ${RUNS.toLocaleString('en')} values cut short or followed by more bytes, saying so`, () => {
		fc.assert(
			fc.property(printedValue, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 }), ({ hex }, cut, more) => {
				const bytes = (hex.length - 2) / 2;
				const short = hex.slice(0, 2 + 2 * (cut % bytes));
				expect(() => readClarityHex(short)).toThrow(short === '0x' ? /holds no value/ : /is not a Clarity value: .* is cut short: it needs/);
				expect(() => readClarityHex(hex + Buffer.from(more).toString('hex'))).toThrow(new RegExp(`: ${more.length} bytes? follows? the value \\(at byte ${bytes}\\)$`));
			}),
			propertyParameters(RUNS),
		);
		console.log(`binary form cut short or followed by more: all refused; ${replayHint()}`);
	});

	it.each([
		['', /"" is not hex/],
		['0x', /0x holds no value/],
		['0x0', /is not hex/],
		['0703', /is not hex/],
		['0xzz', /is not hex/],
		['0xff', /^"0xff" is not a Clarity value: 0xff is not a Clarity type \(at byte 0\)$/],
		['0x0a', /^"0x0a" is not a Clarity value: a value is cut short: it needs 1 byte, and 0 are left \(at byte 1\)$/],
		['0x0100', /a uint is cut short: it needs 16 bytes, and 1 is left \(at byte 1\)/],
		['0x0703ff', /: 1 byte follows the value \(at byte 2\)$/],
		['0x0d00000001ff', /a string-ascii holds a byte that is not printable ASCII/],
		['0x0e00000001ff', /a string-utf8 is not valid UTF-8/],
		['0x0c000000020161030161' + '04', /the tuple key "a" comes twice/],
		['0x0c00000001013103', /"1" is not a valid tuple key/],
		['0x0520' + '00'.repeat(20), /32 is not an address version/],
		['0x' + '0a'.repeat(70) + '09', /nested deeper than 64 levels/],
	])('refuses %j: %p', (hex, message) => {
		expect(() => readClarityHex(hex)).toThrow(ClarityHexError);
		expect(() => readClarityHex(hex)).toThrow(message);
	});
});

describe('the repr (jsonOfRepr)', () => {
	it(`reads ${RUNS.toLocaleString('en')} values as Hiro prints them as the JSON of their binary form`, () => {
		fc.assert(
			fc.property(printedValue, ({ repr, json }) => {
				expect(jsonOfRepr(repr)).toEqual(json);
				// With space around it, as a field may hold it.
				expect(jsonOfRepr(` ${repr}\n`)).toEqual(json);
			}),
			propertyParameters(RUNS),
		);
		console.log(`repr: ${RUNS} values read as the JSON of their binary form; ${replayHint()}`);
	});

	it(`reads ${RUNS.toLocaleString('en')} reprs cut short or followed by more text as no value`, () => {
		fc.assert(
			fc.property(printedValue, fc.constantFrom(' u1', ' x', ')', ' (ok u1)', '"'), ({ repr }, more) => {
				// A form or a string without its last character is unterminated.
				if (/[)"]$/.test(repr)) expect(jsonOfRepr(repr.slice(0, -1))).toBeUndefined();
				expect(jsonOfRepr(repr + more)).toBeUndefined();
			}),
			propertyParameters(RUNS),
		);
	});

	it.each(
		[
			'',
			'   ',
			'hello world',
			'null',
			'undefined',
			'1.5',
			'-',
			'u-1',
			'0xZZ',
			"'SP",
			'(tuple (a u1)',
			'(tuple (a u1)) (b u2)',
			'(tuple a u1)',
			'(list u1 u2',
			'(some u1 u2)',
			'(some)',
			'(ok)',
			'(foo u1)',
			'"unterminated',
			'u"unterminated',
			'"a" "b"',
			'u1 u2',
			')',
			'(',
			'{a: u1',
			'{"a": 1}',
		].map((text) => [text]),
	)('reads %j, which is not a Clarity value, as undefined', (text) => {
		expect(jsonOfRepr(text)).toBeUndefined();
	});
});

describe('values as the service sends them (readSentValue)', () => {
	it(`reads ${RUNS.toLocaleString('en')} values the same as {hex, repr}, as hex alone and as a repr alone`, () => {
		fc.assert(
			fc.property(printedValue, ({ hex, repr, json }) => {
				expect(readSentValue({ hex, repr })).toEqual({ json, hex, repr });
				expect(readSentValue(hex)).toEqual({ json, hex, repr });
				expect(readSentValue({ hex })).toEqual({ json, hex, repr });
				// A repr alone (a text that is not hex: a buffer's repr alone would be read as a binary form).
				if (!repr.startsWith('0x')) expect(readSentValue(repr)).toEqual({ json, hex: null, repr });
			}),
			propertyParameters(RUNS),
		);
	});

	it('keeps what does not read as it came, its JSON undefined', () => {
		expect(readSentValue('0xff')).toEqual({ json: undefined, hex: '0xff', repr: null });
		expect(readSentValue({ hex: '0xff', repr: 'not clarity' })).toEqual({ json: undefined, hex: '0xff', repr: 'not clarity' });
		expect(readSentValue('not clarity')).toEqual({ json: undefined, hex: null, repr: 'not clarity' });
		expect(readSentValue(undefined)).toEqual({ json: undefined, hex: null, repr: null });
		expect(readSentValue(42)).toEqual({ json: undefined, hex: null, repr: null });
	});

	it("reads a call's arguments from the decoded list and from the serialized list alike", () => {
		fc.assert(
			fc.property(fc.array(printedValue, { maxLength: 5 }), (args) => {
				const json = args.map((arg) => arg.json);
				const decoded = args.map(({ hex, repr }, i) => ({ hex, repr, name: `arg${i}`, type: 'any' }));
				expect(readArguments(decoded)).toEqual(json);
				expect(readArguments(`0x${Cl.serialize(Cl.list(args.map((arg) => arg.cv)))}`)).toEqual(json);
			}),
			propertyParameters(RUNS / 4),
		);
		expect(readArguments(null)).toBeNull();
		expect(readArguments('0x0703')).toBeNull();
	});
});

describe("an NFT's id (nftIdOf)", () => {
	it(`is the same, for ${RUNS.toLocaleString('en')} ids, whether it came as a repr, its binary form or a number`, () => {
		fc.assert(
			fc.property(fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }), (id) => {
				const hex = `0x${Cl.serialize(Cl.uint(id))}`;
				expect(nftIdOf(`u${id}`)).toBe(String(id));
				expect(nftIdOf(hex)).toBe(String(id));
				expect(nftIdOf({ hex, repr: `u${id}` })).toBe(String(id));
				if (id <= BigInt(Number.MAX_SAFE_INTEGER)) expect(nftIdOf(Number(id))).toBe(String(id));
			}),
			propertyParameters(RUNS),
		);
	});

	it('is the repr of an id that is not an integer, from either form', () => {
		fc.assert(
			fc.property(printedValue, ({ hex, repr, cv }) => {
				const integer = cv.type === 'int' || cv.type === 'uint';
				const expected = integer ? repr.replace(/^u/, '') : repr;
				expect(nftIdOf(hex)).toBe(expected);
				// A buffer's repr is hex too: when its bytes are themselves a whole value, it reads as that value (sent.ts).
				if (cv.type !== 'buffer' || readSentValue(repr).json === undefined) expect(nftIdOf(repr)).toBe(expected);
			}),
			propertyParameters(RUNS),
		);
	});

	it('keeps a buffer id that is not a serialized value as it came', () => {
		expect(nftIdOf('0x0102')).toBe('0x0102');
		expect(nftIdOf(1.5)).toBeUndefined();
		expect(nftIdOf(undefined)).toBeUndefined();
	});
});
