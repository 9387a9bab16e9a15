import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { HooksClient } from '../../../shared/api/client';

export const description = updateDisplayOptions({ show: { resource: ['service'], operation: ['getStatus'] } }, []);

/** Outputs the service's answer as is: `status` ("ready") and `server_version`. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return (await (await HooksClient.connect(this, { itemIndex })).status()) as IDataObject;
}
