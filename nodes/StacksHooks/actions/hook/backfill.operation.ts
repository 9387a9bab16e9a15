import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { HooksClient } from '../../../shared/api/client';
import { MAX_BACKFILL_BLOCKS } from '../../../shared/constants';
import { blockHeightProperty, hookIdLocator } from './common.descriptions';
import { getHookId } from './common.helpers';

const properties: INodeProperties[] = [
	hookIdLocator,
	blockHeightProperty('fromHeight', 'From Block Height', 'The first block to replay'),
	blockHeightProperty('toHeight', 'To Block Height', `The last block to replay (included). At most ${MAX_BACKFILL_BLOCKS} blocks per item.`),
	{
		displayName:
			"The service evaluates the hook against each block and posts the matches to the hook's webhook, as it would have at the time. Requests are paced within the account's rate limit. With the recipes in the README, replaying blocks that were delivered already changes nothing.",
		name: 'backfillNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['backfill'] } }, properties);

/** A height parameter, refused before any request unless it is a whole number of 0 or more. */
function heightOf(ctx: IExecuteFunctions, name: 'fromHeight' | 'toHeight', label: string, itemIndex: number): number {
	const value = ctx.getNodeParameter(name, itemIndex) as unknown;
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
		throw new NodeOperationError(ctx.getNode(), `'${label}' must be a whole number of 0 or more, not ${JSON.stringify(value)}`, { itemIndex });
	}
	return value;
}

const range = (from: number, to: number) => (from === to ? `${from}` : `${from}–${to}`);

/**
 * Replays the heights From–To into the hook, one evaluation per height in ascending order. Everything is
 * checked before the first evaluation (the heights, the bound, that the hook exists); any error after
 * that (the transport has retried what it retries: 429, 5xx, a lost connection) stops the backfill at
 * once, and the error says how far it got.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uuid = getHookId(this, itemIndex);
	const from = heightOf(this, 'fromHeight', 'From Block Height', itemIndex);
	const to = heightOf(this, 'toHeight', 'To Block Height', itemIndex);
	if (from > to) {
		throw new NodeOperationError(this.getNode(), `'From Block Height' (${from}) is above 'To Block Height' (${to})`, {
			description: 'The range runs from the lower height to the higher one, both included.',
			itemIndex,
		});
	}
	const count = to - from + 1;
	if (count > MAX_BACKFILL_BLOCKS) {
		const items = Math.ceil(count / MAX_BACKFILL_BLOCKS);
		throw new NodeOperationError(this.getNode(), `Backfill replays at most ${MAX_BACKFILL_BLOCKS} blocks per item, not ${count} (${range(from, to)})`, {
			description: `Split ${range(from, to)} into ${items} items of at most ${MAX_BACKFILL_BLOCKS} heights, e.g. ${range(from, from + MAX_BACKFILL_BLOCKS - 1)}, then ${range(from + MAX_BACKFILL_BLOCKS, Math.min(to, from + 2 * MAX_BACKFILL_BLOCKS - 1))}.`,
			itemIndex,
		});
	}
	// An unknown hook is a clear 404 here, before anything is replayed.
	const client = await HooksClient.connect(this, { itemIndex });
	await client.get(uuid);

	for (let height = from; height <= to; height++) {
		try {
			await client.evaluate(uuid, { block_height: height });
		} catch (error) {
			const done = height === from ? 'before replaying any block' : `after replaying ${range(from, height - 1)} (${height - from} of ${count} blocks)`;
			// The service's error as the transport worded it (its HTTP code kept), led by how far the backfill got.
			const stopped = error instanceof NodeApiError || error instanceof NodeOperationError ? error : new NodeOperationError(this.getNode(), error as Error, { itemIndex });
			stopped.message = `Backfill stopped at height ${height} ${done}: ${stopped.message}`;
			throw stopped;
		}
	}
	return { uuid, fromHeight: from, toHeight: to, replayed: count };
}
