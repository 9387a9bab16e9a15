import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { hookIdLocator } from './common.descriptions';
import { setEnabled } from './common.helpers';

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['enable'] } }, [hookIdLocator]);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await setEnabled(this, itemIndex, true);
}
