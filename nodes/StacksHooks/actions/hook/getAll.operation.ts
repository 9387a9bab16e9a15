import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from '../../../shared/constants';
import { type Hook, hookPageSchema } from '../../../shared/schemas';
import { apiRequest, getConnection } from '../../../shared/transport';

/** Pages after the first are fetched this many at a time; the transport's pacing keeps them within the rate limit. */
const PAGE_CONCURRENCY = 10;

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Offset',
				name: 'offset',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 0 },
				default: 0,
				description: 'How many hooks to skip, oldest first',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['getAll'] } }, properties);

async function inBatches<T, R>(inputs: T[], size: number, run: (input: T) => Promise<R>): Promise<R[]> {
	const results: R[] = [];
	for (let start = 0; start < inputs.length; start += size) {
		results.push(...(await Promise.all(inputs.slice(start, start + size).map(run))));
	}
	return results;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const wanted = returnAll ? Infinity : (this.getNodeParameter('limit', itemIndex) as number);
	const { offset = 0 } = this.getNodeParameter('options', itemIndex, {}) as { offset?: number };
	const connection = await getConnection(this);

	const page = async (pageOffset: number, size: number) =>
		await apiRequest(
			this,
			'GET',
			'/me/',
			{ qs: { limit: size, offset: pageOffset }, schema: hookPageSchema, itemIndex },
			connection,
		);

	const first = await page(offset, Math.min(MAX_PAGE_SIZE, wanted));
	const end = Math.min(first.total, offset + wanted);
	const offsets: number[] = [];
	for (let next = offset + first.results.length; next < end && first.results.length > 0; next += MAX_PAGE_SIZE) {
		offsets.push(next);
	}
	// The total is known from the first answer, so the remaining pages need not wait for each other.
	const rest = await inBatches(offsets, PAGE_CONCURRENCY, async (pageOffset) =>
		(await page(pageOffset, Math.min(MAX_PAGE_SIZE, end - pageOffset))).results,
	);
	const hooks: Hook[] = [first.results, ...rest].flat();
	return hooks.slice(0, wanted === Infinity ? undefined : wanted) as IDataObject[];
}
