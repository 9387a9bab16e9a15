import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { BatchResult } from '../operation';
import { addressProperty, listNameProperty } from './common.descriptions';
import { editFromItems } from './common.helpers';

const properties: INodeProperties[] = [listNameProperty, addressProperty];

export const description = updateDisplayOptions({ show: { resource: ['watchList'], operation: ['add'] } }, properties);

/** Each item: `{list, address, added}` (false: it was on the list already), the list's size and the watching hooks updated. */
export async function executeBatch(this: IExecuteFunctions, itemIndexes: number[]): Promise<BatchResult> {
	return await editFromItems(this, itemIndexes, 'add');
}
