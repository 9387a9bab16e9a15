/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Properties of the trigger's webhook() through n8n-core's webhook context, over generated
 * deliveries (test/support/deliveryArbitraries.ts): every valid delivery is answered 200 and
 * turned into exactly its transactions, rollbacks first; every delivery with a broken part the
 * trigger reads is answered 400 and starts nothing; no exception ever escapes.
 * The official schema (the emulator's checkDelivery) is the oracle of what is valid.
 */
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import type { IDataObject } from 'n8n-workflow';

import { checkDelivery, type DeliveryPayload } from '../../emulator';
import { expectedJson } from '../../support/clarity';
import { delivery, MUTATIONS, mutatedDelivery } from '../../support/deliveryArbitraries';
import { expectedBlockFields, expectedTransactionFields } from '../../support/expectedItems';
import { activateTrigger, deliverToTrigger, triggerParameters, useEmulator } from '../../support/engine/fixtures';
import { propertyParameters, replayHint } from '../../support/properties';

useEmulator();
// Each property runs its deliveries one after the other through n8n-core: about 30 s each alone, a minute
// beside the other fast suites and the installs on 2 cores.
jest.setTimeout(10 * 60_000);

/**
 * Deliveries per property: 3,000 (it was 10,000: 272 s, the longest of CI's fast suites, which the
 * real-n8n suites waited for). The claim is about every kind of delivery, and 3,000 reach each kind
 * many times over, which the end of each property asserts rather than trusts: about 90 blocks of
 * over 1,000 transactions, 700 deliveries without a transaction and 700 with rollbacks among the
 * valid ones; each of the 27 mutations (the rarest 20 to 50 times) among the broken ones. More runs
 * repeat kinds already seen; each CI run draws a new seed, and `FC_RUNS_FACTOR=10` runs 30,000.
 */
const RUNS = 3_000;
/** One set of fast-check parameters for both properties: the run count their names say is the one they run. */
const PARAMETERS = propertyParameters(RUNS);
const runs = PARAMETERS.numRuns!;
/** The official schema is checked (slowly, interpreted) on deliveries up to this many transactions. */
const ORACLE_MAX_TRANSACTIONS = 60;
const parameters = triggerParameters();
let activated: IDataObject;

beforeAll(async () => {
	activated = await activateTrigger();
});

const post = (body: unknown) => deliverToTrigger(body, activated, parameters);

/**
 * `expect(actual).toEqual(expected)`, with Node's isDeepStrictEqual tried first: a strict match is a toEqual match,
 * and anything else goes to toEqual, so the verdict and the failure's diff are jest's. On blocks of up to 2,000
 * transactions jest's deep equality was a fifth of this suite's CPU (27 against 34 s of user time, the suite alone).
 */
function expectEqual(actual: unknown, expected: unknown): void {
	if (!isDeepStrictEqual(actual, expected)) expect(actual).toEqual(expected);
}

/** The items a delivery must give, written from the payload's documented fields (README, "What an item looks like"). */
function expectedItems(payload: DeliveryPayload): IDataObject[] {
	const blocks = [...payload.event.rollback.map((b) => ['rollback', b] as const), ...payload.event.apply.map((b) => ['apply', b] as const)];
	return blocks.flatMap(([direction, b]) =>
		b.transactions.map((tx) => ({
			transactionId: `${b.block_identifier.hash}:${tx.transaction_identifier.hash}`,
			...expectedBlockFields(payload, direction, b),
			// README: what the transaction returned, as JSON, whether the service sent {hex, repr} or the hex alone.
			...expectedTransactionFields(tx, expectedJson(typeof tx.metadata.result === 'string' ? tx.metadata.result : tx.metadata.result.hex)),
		})),
	);
}

const transactionCount = (payload: DeliveryPayload) =>
	[...payload.event.rollback, ...payload.event.apply].reduce((sum, b) => sum + b.transactions.length, 0);

it(`answers ${runs.toLocaleString('en')} valid deliveries 200, each turned into exactly its transactions, rollbacks first`, async () => {
	const seen = { deliveries: 0, transactions: 0, largest: 0, overThousand: 0, empty: 0, withRollback: 0, oracle: 0 };
	await fc.assert(
		fc.asyncProperty(delivery, async (payload) => {
			const count = transactionCount(payload);
			if (count <= ORACLE_MAX_TRANSACTIONS) {
				expect(checkDelivery(payload).errors).toEqual([]);
				seen.oracle++;
			}
			const result = await post(payload);
			expect(result.status).toBe(200);
			expect(result.sentBody).toEqual({ received: true, items: count });
			const items = result.response.workflowData?.[0].map((item) => item.json) ?? [];
			expectEqual(items, expectedItems(payload));
			if (count === 0) expect(result.response.workflowData).toBeUndefined();
			seen.deliveries++;
			seen.transactions += count;
			const sizes = [...payload.event.apply, ...payload.event.rollback].map((b) => b.transactions.length);
			seen.largest = Math.max(seen.largest, ...sizes);
			seen.overThousand += sizes.filter((size) => size > 1000).length;
			if (count === 0) seen.empty++;
			if (payload.event.rollback.length > 0) seen.withRollback++;
		}),
		PARAMETERS,
	);
	console.log(
		`valid deliveries: ${seen.deliveries} all 200 and itemised exactly; ${seen.transactions} transactions, largest block ${seen.largest}, ${seen.overThousand} blocks over 1,000, ` +
			`${seen.empty} without a transaction, ${seen.withRollback} with rollbacks, ${seen.oracle} also checked against the official schema; ${replayHint()}`,
	);
	// What the run reached, so that a smaller run cannot pass without the kinds the claim is about.
	expect({ blocksOverThousand: seen.overThousand > 0, empty: seen.empty > 0, withRollback: seen.withRollback > 0 }).toEqual({ blocksOverThousand: true, empty: true, withRollback: true });
});

it(`answers ${runs.toLocaleString('en')} deliveries with a broken part 400, naming it, and starts nothing`, async () => {
	const byMutation = new Map<string, number>();
	await fc.assert(
		fc.asyncProperty(mutatedDelivery, async ({ body, mutation }) => {
			const small = typeof body !== 'object' || body === null || JSON.stringify(body).length < 200_000;
			if (small) expect(checkDelivery(body).ok).toBe(false);
			const result = await post(body);
			expect(result.status).toBe(400);
			expect(result.sentBody).toEqual({ error: 'Bad Request', details: expect.stringMatching(/^Not a hook delivery: .+ must be /) });
			expect(result.response.workflowData).toBeUndefined();
			byMutation.set(mutation, (byMutation.get(mutation) ?? 0) + 1);
		}),
		PARAMETERS,
	);
	const counts = [...byMutation].map(([name, n]) => `${name} ${n}`).join(', ');
	console.log(`broken deliveries: ${[...byMutation.values()].reduce((a, b) => a + b, 0)} all 400 (${counts}); ${replayHint()}`);
	// Every mutation broke at least one delivery: none of the parts the trigger reads went untried.
	expect(MUTATIONS.map((mutation) => mutation.name).filter((name) => !byMutation.has(name))).toEqual([]);
});
