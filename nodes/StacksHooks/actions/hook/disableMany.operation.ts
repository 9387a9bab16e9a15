import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { bulkFiltersProperty } from './common.descriptions';
import { bulkSetEnabled } from './common.helpers';

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['disableMany'] } }, [
	bulkFiltersProperty,
]);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await bulkSetEnabled(this, itemIndex, false);
}
