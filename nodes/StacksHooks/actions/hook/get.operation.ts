import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { hookSchema } from '../../../shared/schemas';
import { apiRequest } from '../../../shared/transport';
import { getHookId, hookIdLocator } from './common';

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['get'] } }, [hookIdLocator]);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uuid = getHookId.call(this, itemIndex);
	const hook = await apiRequest(this, 'GET', `/me/${uuid}`, { schema: hookSchema, hookId: uuid, itemIndex });
	return hook as IDataObject;
}
