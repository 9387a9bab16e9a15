import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteHook } from '../../../shared/hooks';
import { getHookId, hookIdLocator } from './common';

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['delete'] } }, [hookIdLocator]);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uuid = getHookId.call(this, itemIndex);
	await deleteHook(this, uuid, itemIndex);
	return { uuid, deleted: true };
}
