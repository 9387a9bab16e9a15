import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { BatchResult } from '../operation';
import { addressProperty, listNameProperty } from './common.descriptions';
import { editFromItems } from './common.helpers';

const properties: INodeProperties[] = [
	{
		displayName:
			'The list becomes exactly the addresses of this run\'s items: feed it every row of a list kept elsewhere (a Data Table, a sheet, a database), e.g. on a schedule, to keep the watch list in step. One item with a bad address fails the run, and nothing is changed.',
		name: 'replaceNotice',
		type: 'notice',
		default: '',
	},
	listNameProperty,
	addressProperty,
];

export const description = updateDisplayOptions({ show: { resource: ['watchList'], operation: ['replace'] } }, properties);

/** Each item: `{list, address, added}` (false: it was on the list already), the list's size, how many addresses left it, and the watching hooks updated. */
export async function executeBatch(this: IExecuteFunctions, itemIndexes: number[]): Promise<BatchResult> {
	return await editFromItems(this, itemIndexes, 'replace');
}
