/**
 * A delivery of a hook that leaves the matching of its list to the trigger (its filters select the kinds
 * for any address: ../../shared/watchList/listHook.ts), cut down to the transactions about a listed
 * address, by the same lookups that name them (watchedAddresses.ts); blocks left with none are dropped,
 * in rollbacks as in applies. What is left is what one filter per address and kind would have delivered
 * (a property checks it: test/suites/engine/watchList.property.test.ts).
 */
import type { DeliveredBlock, Delivery } from '../delivery/shape';
import type { WatchedAddresses } from './watchedAddresses';

function listedOnly(blocks: readonly DeliveredBlock[], list: WatchedAddresses): DeliveredBlock[] {
	const kept: DeliveredBlock[] = [];
	for (const block of blocks) {
		const transactions = block.transactions.filter((tx) => list.ofTransactions([tx]).length > 0);
		if (transactions.length === 0) continue;
		kept.push(transactions.length === block.transactions.length ? block : { ...block, transactions });
	}
	return kept;
}

export function listedTransactionsOf(delivery: Delivery, list: WatchedAddresses): Delivery {
	return { ...delivery, event: { ...delivery.event, apply: listedOnly(delivery.event.apply, list), rollback: listedOnly(delivery.event.rollback, list) } };
}
