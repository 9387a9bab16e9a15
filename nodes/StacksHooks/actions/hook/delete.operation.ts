import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { HooksClient } from '../../../shared/api/client';
import { hookIdLocator } from './common.descriptions';
import { getHookId } from './common.helpers';

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['delete'] } }, [hookIdLocator]);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uuid = getHookId(this, itemIndex);
	await (await HooksClient.connect(this, { itemIndex })).delete(uuid);
	return { uuid, deleted: true };
}
