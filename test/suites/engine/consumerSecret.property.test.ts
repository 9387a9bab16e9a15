/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Properties of the secret check (secret/consumerSecret.ts): a delivery's presented secrets match a
 * kept digest exactly when one of them is the secret of that digest, whether the process already knows
 * that secret (held against it in constant time) or not (hashed), for any secrets: equal prefixes,
 * different lengths, empty, non-ASCII, several presented at once, and in any order of deliveries.
 */
import fc from 'fast-check';

import { knowSecret, PresentedSecrets, secretDigest } from '../../../nodes/StacksHooksTrigger/secret/consumerSecret';
import { propertyParameters, replayHint } from '../../support/properties';

const RUNS = 300 * Number(process.env.FC_RUNS_FACTOR ?? 1);

/** Secrets that differ little: a shared prefix, a byte more or less, a character outside ASCII. */
const secret = fc.oneof(
	fc.string({ maxLength: 70 }),
	fc.constantFrom('', 'b3e7c0de'.repeat(8), `${'b3e7c0de'.repeat(8)}0`, 'b3e7c0de'.repeat(7), `${'b3e7c0de'.repeat(7)}b3e7c0dé`),
	fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 63, maxLength: 65 }),
);

describe('the consumer secret check', () => {
	it('matches a kept digest exactly when a presented secret is its secret, known to the process or not', () => {
		let known = 0;
		let hashed = 0;
		try {
			fc.assert(
				fc.property(
					fc.array(secret, { minLength: 1, maxLength: 4 }),
					fc.array(fc.record({ presented: fc.array(secret, { maxLength: 3 }), kept: fc.nat(), learn: fc.boolean() }), { minLength: 1, maxLength: 12 }),
					(kept, deliveries) => {
						for (const { presented, kept: which, learn } of deliveries) {
							const keptSecret = kept[which % kept.length];
							const digest = secretDigest(keptSecret);
							// Sometimes the process learns a kept secret the way a read of the service teaches it.
							if (learn) knowSecret(digest, keptSecret);
							const check = new PresentedSecrets(presented);
							expect(check.match(digest)).toBe(presented.includes(keptSecret));
							// Every other kept digest, in the same delivery: each answer stands on its own.
							for (const other of kept) expect(check.match(secretDigest(other))).toBe(presented.includes(other));
							if (learn) known++;
							else hashed++;
						}
					},
				),
				propertyParameters(RUNS),
			);
		} finally {
			console.log(`consumer secret check: ${known} deliveries after a read taught the secret, ${hashed} without; ${replayHint()}`);
		}
	});

	it('refuses a digest that is not a SHA-256, and a delivery that presents nothing', () => {
		expect(new PresentedSecrets(['b3e7c0de']).match('not-hex')).toBe(false);
		expect(new PresentedSecrets(['b3e7c0de']).match('ab'.repeat(31))).toBe(false);
		expect(new PresentedSecrets([]).match(secretDigest('b3e7c0de'))).toBe(false);
		knowSecret(secretDigest(''), '');
		expect(new PresentedSecrets([]).match(secretDigest(''))).toBe(false);
		expect(new PresentedSecrets(['']).match(secretDigest(''))).toBe(true);
	});
});
