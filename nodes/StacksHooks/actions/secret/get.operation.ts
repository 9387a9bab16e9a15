import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { HooksClient } from '../../../shared/api/client';

const properties: INodeProperties[] = [
	{
		displayName:
			'Outputs the account\'s current consumer secret as "secret" (null when the account has none). Reading it changes nothing: use it to set up another receiver of the deliveries.',
		name: 'getNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['secret'], operation: ['get'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return { secret: await (await HooksClient.connect(this, { itemIndex })).secret() };
}
