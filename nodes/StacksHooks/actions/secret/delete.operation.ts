import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { HooksClient } from '../../../shared/api/client';
import { DELETION_NOTICE } from './notices';

const properties: INodeProperties[] = [{ displayName: DELETION_NOTICE, name: 'deletionNotice', type: 'notice', default: '' }];

export const description = updateDisplayOptions({ show: { resource: ['secret'], operation: ['delete'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	await (await HooksClient.connect(this, { itemIndex })).deleteSecret();
	this.addExecutionHints({ message: DELETION_NOTICE, location: 'outputPane' });
	return { deleted: true };
}
