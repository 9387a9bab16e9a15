import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { type BlockRef, HooksClient } from '../../../shared/api/client';
import { blockHeightProperty, hookIdLocator } from './common.descriptions';
import { getHookId } from './common.helpers';

const properties: INodeProperties[] = [
	hookIdLocator,
	blockHeightProperty('blockHeight', 'Block Height', "The block to test the hook against. Matches are posted to the hook's webhook a few seconds later."),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Index Block Hash',
				name: 'indexBlockHash',
				type: 'string',
				default: '',
				placeholder: 'e.g. 0xcb60a6f807fed52d0cd1a803e9ead7455ff1078be0a1d11c4c4be47350fa3551',
				description: 'Pick the block by its index block hash instead of its height',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['evaluate'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uuid = getHookId(this, itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const hash = typeof options.indexBlockHash === 'string' ? options.indexBlockHash.trim() : '';
	let body: BlockRef;
	if (hash) {
		body = { index_block_hash: hash };
	} else {
		const height = this.getNodeParameter('blockHeight', itemIndex) as number;
		if (!Number.isInteger(height) || height < 0) {
			throw new NodeOperationError(this.getNode(), `'Block Height' must be a whole number of 0 or more, not ${height}`, {
				itemIndex,
			});
		}
		body = { block_height: height };
	}
	await (await HooksClient.connect(this, { itemIndex })).evaluate(uuid, body);
	return { uuid, evaluated: true, ...body };
}
