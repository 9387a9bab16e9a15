import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { hookIdLocator, setEnabled } from './common';

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['enable'] } }, [hookIdLocator]);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await setEnabled.call(this, itemIndex, true);
}
