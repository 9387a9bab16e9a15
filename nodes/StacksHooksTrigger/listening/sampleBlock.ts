/**
 * Sample Block: a test event in seconds. While the editor listens for a test
 * event, the trigger asks the service to evaluate its freshly registered test
 * hook against a block the user names; the block's matching events arrive as
 * a real delivery, through the same checks as production. The trigger then
 * waits (up to WAIT_MS) until it knows the outcome: the delivery arrived, or
 * the service evaluated the block and had nothing to deliver, which the user
 * is told at once instead of waiting for a delivery that will not come.
 * Activation never reads the parameter.
 */
import type { IHookFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { BlockRef, HooksClient } from '../../shared/api/client';
import type { Hook } from '../../shared/schemas';
import { asNodeError } from '../../shared/transport/errors';
import { testDeliveryArrivedSince } from './handOver';

/** How long listening waits for the outcome of the evaluation before it gives up with a message. */
export const WAIT_MS = 20_000;
/** How often the hook's status is read meanwhile (one request each; the service allows 100 a minute on its free tier). */
const STATUS_EVERY_MS = 1_000;
/** How often, between status reads, the trigger looks whether the delivery has arrived in this n8n process (no request). */
const ARRIVAL_EVERY_MS = 100;
/** Once the service has evaluated the block, how long a delivery may still take to arrive. */
const DELIVERY_GRACE_MS = 3_000;

const EXPLORER = 'https://explorer.hiro.so';

export const sampleBlockProperties: INodeProperties[] = [
	{
		displayName: 'Used only while listening for a test event in the editor; activation ignores the setting below',
		name: 'testEventNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Sample Block',
		name: 'sampleBlock',
		type: 'string',
		default: '',
		placeholder: 'e.g. 3925130',
		description: `A block the service replays to this trigger when you listen for a test event, so that its matching events arrive within seconds: its height, or its index block hash (0x and 64 hex digits). To find the block of a transaction, open ${EXPLORER}/txid/TRANSACTION_ID?chain=mainnet (or chain=testnet): the page shows its block height. Leave empty to wait for live events.`,
	},
];

/** The block to replay: only while listening for a test event, and only when the parameter names one. Read before anything is registered, so a wrong value leaves nothing behind. */
export function listeningSample(ctx: IHookFunctions): BlockRef | undefined {
	return ctx.getMode() === 'manual' ? sampleBlockRef(ctx.getNode(), ctx.getNodeParameter('sampleBlock', '')) : undefined;
}

/** The block the parameter names, or undefined when it is empty. */
export function sampleBlockRef(node: INode, raw: unknown): BlockRef | undefined {
	const text = String(raw ?? '').trim();
	if (text === '') return undefined;
	if (/^\d+$/.test(text) && Number.isSafeInteger(Number(text))) return { block_height: Number(text) };
	if (/^(0x)?[0-9a-fA-F]{64}$/.test(text)) return { index_block_hash: text.startsWith('0x') ? text.toLowerCase() : `0x${text.toLowerCase()}` };
	throw new NodeOperationError(node, `'Sample Block' must be a block height or an index block hash, not "${text}"`, {
		description: 'A block height is a whole number (e.g. 3925130); an index block hash is 0x followed by 64 hex digits. Leave it empty to wait for live events.',
	});
}

/** One of the hook's counts, 0 when the service left it out. */
const count = (hook: Hook, key: 'occurrence_count' | 'evaluated_block_count'): number => hook.status[key] ?? 0;

function label(ref: BlockRef): string {
	return 'block_height' in ref ? `block ${ref.block_height}` : `the block with index block hash ${ref.index_block_hash}`;
}

function explorerLink(ref: BlockRef, network: string): string {
	const id = 'block_height' in ref ? ref.block_height : ref.index_block_hash;
	return `${EXPLORER}/block/${id}?chain=${network}`;
}

/** Sleeps until `ms` passed or the test delivery arrived; true when it did. */
async function arrivedWithin(ctx: IHookFunctions, since: number, ms: number): Promise<boolean> {
	for (const until = Date.now() + ms; Date.now() < until; ) {
		if (testDeliveryArrivedSince(ctx, since)) return true;
		await sleep(Math.min(ARRIVAL_EVERY_MS, until - Date.now()));
	}
	return testDeliveryArrivedSince(ctx, since);
}

/**
 * Listening for a test event with Sample Block set: evaluates `hook` against that block and returns once
 * its delivery arrived (n8n then runs the test execution). Throws with the reason when the block has no
 * match or the service does not evaluate it in time; n8n then stops listening and shows the message.
 */
export async function replaySampleBlock(ctx: IHookFunctions, service: HooksClient, hook: Hook, ref: BlockRef): Promise<void> {
	const { network } = service.connection;
	const since = Date.now();
	try {
		await service.evaluate(hook.uuid, ref);
	} catch (error) {
		throw asNodeError(ctx.getNode(), error);
	}
	let evaluatedAt: number | undefined;
	for (const until = since + WAIT_MS; Date.now() < until; ) {
		if (await arrivedWithin(ctx, since, Math.min(STATUS_EVERY_MS, until - Date.now()))) return;
		let now: Hook;
		try {
			now = await service.get(hook.uuid);
		} catch (error) {
			throw asNodeError(ctx.getNode(), error);
		}
		// A delivery the service counts: it reached this n8n (perhaps another of its processes).
		if (count(now, 'occurrence_count') > count(hook, 'occurrence_count')) return;
		if (evaluatedAt === undefined && count(now, 'evaluated_block_count') > count(hook, 'evaluated_block_count')) evaluatedAt = Date.now();
		if (evaluatedAt !== undefined && Date.now() - evaluatedAt >= DELIVERY_GRACE_MS) {
			throw new NodeOperationError(ctx.getNode(), `No event in ${label(ref)} matches this trigger's filters`, {
				description: `The service evaluated the test hook against ${label(ref)} and had nothing to deliver. Pick a block with a matching transaction (${explorerLink(ref, network)} lists its transactions), change the filters, or clear 'Sample Block' to wait for live events. If the block does hold a matching event, the service could not deliver it to this n8n: check that WEBHOOK_URL is reachable from the internet.`,
			});
		}
	}
	throw new NodeOperationError(ctx.getNode(), `The service did not evaluate ${label(ref)} within ${WAIT_MS / 1000} seconds`, {
		description: `Check that the block exists on ${network} (${explorerLink(ref, network)}), or clear 'Sample Block' to wait for live events.`,
	});
}
