/**
 * A watch-list delivery cut down to the transactions about an address on the list at each block's height,
 * by the same lookups that name them (watchedAddresses.ts); blocks left with none are dropped, in rollbacks
 * as in applies. The service matches a block with the hook's filters as they are when it sends it, and they
 * select more than the list: all addresses, for a hook that leaves the matching of its list to the trigger
 * (../../shared/watchList/listHook.ts), and addresses removed lately, whose undos a reorganisation may still
 * bring (../../shared/watchList/history.ts). What is left is what one filter per address and kind, as the
 * list was at the block's height, would have delivered (properties check it:
 * test/suites/engine/watchList.property.test.ts).
 */
import type { DeliveredBlock, Delivery } from '../../shared/delivery';
import type { WatchedAddresses } from './watchedAddresses';

function listedOnly(blocks: readonly DeliveredBlock[], list: WatchedAddresses): DeliveredBlock[] {
	const kept: DeliveredBlock[] = [];
	for (const block of blocks) {
		const listed = list.at(block.block_identifier.index);
		const transactions = block.transactions.filter((tx) => listed.ofTransactions([tx]).length > 0);
		if (transactions.length === 0) continue;
		kept.push(transactions.length === block.transactions.length ? block : { ...block, transactions });
	}
	return kept;
}

export function listedTransactionsOf(delivery: Delivery, list: WatchedAddresses): Delivery {
	return { ...delivery, event: { ...delivery.event, apply: listedOnly(delivery.event.apply, list), rollback: listedOnly(delivery.event.rollback, list) } };
}
