/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Properties of the ids on the trigger's items (`transactionId`, `eventId`, `blockId`), through
 * n8n-core's webhook context, for generated chains: the same in every delivery of a block (a re-sent
 * delivery, the block built again as an evaluation or a backfill delivers it), distinct across the
 * blocks and events of a chain, new for a transaction mined again in another block after a
 * reorganisation, and on a rollback item the id of the apply it undoes.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { type BlockInput, type DeliveryPayload, makeBlock, type TxInput } from '../../emulator';
import { txInput } from '../../support/deliveryArbitraries';
import { activateTrigger, deliverToTrigger, emu, triggerParameters, useEmulator } from '../../support/engine/fixtures';
import { propertyParameters, replayHint } from '../../support/properties';

useEmulator();

const RUNS = 60 * Number(process.env.FC_RUNS_FACTOR ?? 1);

/** The id field of each output mode that has one. */
const ID_FIELD = { transaction: 'transactionId', event: 'eventId', block: 'blockId' } as const;
type Mode = keyof typeof ID_FIELD;

/**
 * Filters that select every event kind the emulator builds, so "One Item per Event" outputs them all. A tenure
 * change filter selects one cause (Block Found unless told): both are listed, or a tip of only extensions outputs
 * nothing (seed 1939743967 found it).
 */
const EVERYTHING = {
	filter: [
		...['stx_event', 'ft_event', 'nft_event', 'contract_deploy', 'contract_call', 'contract_log', 'coinbase'].map((type) => ({ type })),
		...['block_found', 'extended'].map((cause) => ({ type: 'tenure_change', cause })),
	],
};

/**
 * A chain of 1-4 blocks from height `start`, each of 1-5 transactions with their own ids, and the fork
 * of its tip: another block at the tip's height with another hash, the tip's transactions mined again in
 * it (the same txids) and maybe one more.
 */
const chain = fc
	.record({
		start: fc.nat({ max: 1_000_000 }),
		blocks: fc.array(fc.array(txInput, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
		extra: fc.option(txInput, { nil: undefined }),
	})
	.map(({ start, blocks, extra }) => {
		let next = 0;
		const withId = (tx: TxInput): TxInput => ({ ...tx, txid: `0x${(++next).toString(16).padStart(64, '0')}` });
		const inputs: BlockInput[] = blocks.map((txs, i) => ({ height: start + i, transactions: txs.map(withId) }));
		const tip = inputs[inputs.length - 1];
		const fork: BlockInput = {
			height: tip.height,
			hash: `0x${'f0'.repeat(31)}${(tip.height % 256).toString(16).padStart(2, '0')}`,
			transactions: [...tip.transactions, ...(extra ? [withId(extra)] : [])],
		};
		return { inputs, fork };
	});

describe('Item ids', () => {
	let activated: IDataObject;
	beforeEach(async () => {
		activated = await activateTrigger();
	});

	const payload = (apply: BlockInput[], rollback: BlockInput[] = []): DeliveryPayload => ({
		chainhook: { uuid: emu.hooks()[0].uuid, name: 'ids' },
		event: { chain: 'stacks', network: 'testnet', apply: apply.map(makeBlock), rollback: rollback.map(makeBlock) },
	});

	async function itemsOf(body: DeliveryPayload, mode: Mode): Promise<IDataObject[]> {
		const parameters: INodeParameters = triggerParameters({ output: mode, rollbacks: 'include', events: EVERYTHING });
		const result = await deliverToTrigger(body, activated, parameters);
		expect(result.status).toBe(200);
		return result.response.workflowData?.[0].map((item) => item.json) ?? [];
	}

	const idsOf = (items: IDataObject[], mode: Mode, direction?: 'apply' | 'rollback') =>
		items.filter((item) => direction === undefined || item.direction === direction).map((item) => item[ID_FIELD[mode]] as string);

	it('are stable across duplicates and replays, distinct across blocks and events, and a rollback carries its apply\'s', async () => {
		const seen = { chains: 0, items: 0, remined: 0 };
		await fc.assert(
			fc.asyncProperty(chain, fc.constantFrom<Mode>('transaction', 'event', 'block'), async ({ inputs, fork }, mode) => {
				const tip = inputs[inputs.length - 1];
				// The whole chain in one delivery: one id per item, none twice.
				const all = await itemsOf(payload(inputs), mode);
				const ids = idsOf(all, mode);
				expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
				expect(new Set(ids).size).toBe(ids.length);
				// Each block again on its own, twice (a re-sent delivery), and built again (what an evaluation or a
				// backfill delivers): the same ids as in the first delivery, in the same order.
				const again: string[] = [];
				for (const input of inputs) {
					const once = idsOf(await itemsOf(payload([input]), mode), mode);
					expect(idsOf(await itemsOf(payload([input]), mode), mode)).toEqual(once);
					expect(idsOf(await itemsOf(payload([structuredClone(input)]), mode), mode)).toEqual(once);
					again.push(...once);
				}
				expect(again).toEqual(ids);
				// A reorganisation: the tip undone, its fork applied, in one delivery.
				const reorg = await itemsOf(payload([fork], [tip]), mode);
				const tipIds = idsOf(await itemsOf(payload([tip]), mode), mode);
				expect(idsOf(reorg, mode, 'rollback')).toEqual(tipIds);
				const forkIds = idsOf(reorg, mode, 'apply');
				expect(forkIds.filter((id) => tipIds.includes(id))).toEqual([]);
				// The tip's transactions are mined again in the fork: same txHash, other ids.
				if (mode !== 'block') {
					const tipTx = new Set(reorg.filter((item) => item.direction === 'rollback').map((item) => item.txHash));
					const remined = reorg.filter((item) => item.direction === 'apply' && tipTx.has(item.txHash));
					seen.remined += remined.length;
					expect(remined.length).toBeGreaterThan(0);
				}
				seen.chains++;
				seen.items += all.length;
			}),
			propertyParameters(RUNS),
		);
		console.log(`item ids: ${seen.chains} chains, ${seen.items} items, ${seen.remined} items of transactions mined again after a reorganisation; ${replayHint()}`);
	});
});
