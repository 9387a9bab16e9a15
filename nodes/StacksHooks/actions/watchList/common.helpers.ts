/**
 * Adding and removing addresses: every item of a run is one address, and the run is one edit of the
 * list (nodes/shared/watchList/edit.ts): a few requests however many items, where an edit an item
 * would cost four each. An item whose address is not valid fails alone.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Breather } from '../../../shared/breather';
import { checkedPrincipals } from '../../../shared/watchList/addressList';
import { editList } from '../../../shared/watchList/edit';
import { checkedListName } from '../../../shared/watchList/listHook';
import { HooksClient } from '../../../shared/api/client';
import type { BatchResult } from '../operation';

/**
 * `replace`: the list becomes exactly the items' addresses. One bad item then fails them all: a replacement
 * without it would remove that address.
 */
export async function editFromItems(ctx: IExecuteFunctions, itemIndexes: number[], how: 'add' | 'remove' | 'replace'): Promise<BatchResult> {
	const client = await HooksClient.connect(ctx);
	const { connection } = client;
	const node = ctx.getNode();
	const results: BatchResult = new Map();
	const byList = new Map<string, Array<{ itemIndex: number; address: string }>>();
	const breather = new Breather();
	for (const itemIndex of itemIndexes) {
		await breather.breathe();
		try {
			const name = checkedListName(node, ctx.getNodeParameter('listName', itemIndex), itemIndex);
			const typed = String(ctx.getNodeParameter('address', itemIndex, '') ?? '').trim();
			const [address] = checkedPrincipals(node, [{ principal: typed, where: `item ${itemIndex + 1}` }], connection.network, 'the address');
			const entries = byList.get(name) ?? [];
			entries.push({ itemIndex, address });
			byList.set(name, entries);
		} catch (error) {
			results.set(itemIndex, error instanceof NodeOperationError ? new NodeOperationError(node, error.message, { itemIndex, description: error.description ?? undefined }) : (error as Error));
		}
	}
	const failed = [...results.values()][0];
	if (how === 'replace' && failed) throw failed;
	for (const [name, entries] of byList) {
		const addresses = entries.map((entry) => entry.address);
		const change = how === 'remove' ? { add: [], remove: addresses } : { add: addresses, remove: [], replace: how === 'replace' };
		const edit = await editList(client, name, change);
		const before = new Set(edit.before);
		const common: IDataObject = {
			listSize: edit.after.length,
			hooksUpdated: edit.watchers.filter((watcher) => watcher.updated).map((watcher) => watcher.uuid),
		};
		if (how === 'replace') {
			const after = new Set(edit.after);
			common.removed = edit.before.filter((address) => !after.has(address)).length;
		}
		for (const { itemIndex, address } of entries) {
			results.set(itemIndex, { list: name, address, [how === 'remove' ? 'removed' : 'added']: how === 'remove' ? before.has(address) : !before.has(address), ...common });
		}
	}
	return results;
}
