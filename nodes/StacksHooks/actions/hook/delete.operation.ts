import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { apiRequest } from '../../../shared/transport';
import { getHookId, hookIdLocator } from './common';

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['delete'] } }, [hookIdLocator]);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uuid = getHookId.call(this, itemIndex);
	await apiRequest(this, 'DELETE', `/me/${uuid}`, { hookId: uuid, itemIndex });
	return { uuid, deleted: true };
}
