import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { rotateSecret } from '../../../shared/api/secretEndpoints';

const ROTATION_NOTICE =
	'The consumer secret belongs to the account: rotating it changes it for every hook of the account at once, and the old one stops working. Put the new secret in the "Consumer Secret" field of the Stacks Hooks API credential (and in any other receiver) right away.';

const properties: INodeProperties[] = [
	{
		displayName: ROTATION_NOTICE,
		name: 'rotationNotice',
		type: 'notice',
		default: '',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['secret'], operation: ['rotate'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const secret = await rotateSecret(this, { itemIndex });
	this.addExecutionHints({ message: ROTATION_NOTICE, location: 'outputPane' });
	return { secret, rotated: true };
}
