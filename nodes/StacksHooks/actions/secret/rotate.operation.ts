import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { HooksClient } from '../../../shared/api/client';
import { ROTATION_NOTICE } from './notices';

const properties: INodeProperties[] = [{ displayName: ROTATION_NOTICE, name: 'rotationNotice', type: 'notice', default: '' }];

export const description = updateDisplayOptions({ show: { resource: ['secret'], operation: ['rotate'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const secret = await (await HooksClient.connect(this, { itemIndex })).rotateSecret();
	this.addExecutionHints({ message: ROTATION_NOTICE, location: 'outputPane' });
	return { secret, rotated: true };
}
