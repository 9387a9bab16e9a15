import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { HooksClient } from '../../../shared/api/client';
import { addressesOf, checkedListName, findListHook, watchedListOf } from '../../../shared/watchList/listHook';
import { listNameProperty } from './common.descriptions';

const properties: INodeProperties[] = [listNameProperty];

export const description = updateDisplayOptions({ show: { resource: ['watchList'], operation: ['get'] } }, properties);

/** `{list, size, addresses, watchedBy}`: the list as the service keeps it (empty when it never held an address) and the hooks watching it. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const name = checkedListName(this.getNode(), this.getNodeParameter('listName', itemIndex), itemIndex);
	const client = await HooksClient.connect(this, { itemIndex });
	const { connection } = client;
	const hooks = await client.list();
	const list = findListHook(hooks, name, connection.network);
	const addresses = list ? addressesOf(list) : [];
	const watchedBy = hooks
		.filter((hook) => watchedListOf(hook.definition.name)?.name === name && hook.definition.network === connection.network)
		.map((hook) => ({ uuid: hook.uuid, name: hook.definition.name, kinds: watchedListOf(hook.definition.name)!.kinds, enabled: hook.status.enabled }));
	return { list: name, size: addresses.length, addresses, listHookUuid: list?.uuid ?? null, watchedBy };
}
