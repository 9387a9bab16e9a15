/**
 * A watch list's recent edits, by height: what keeps a reorganisation, a replay or a late delivery across
 * an edit exact. The service matches every block it sends, rollbacks and evaluations included, with a hook's
 * filters as they are when it sends it, not as they were when the block first came. So an edit records the
 * height it takes effect above (the chain's tip as the watching hooks last evaluated it), and an address is
 * on the list at height h as its own latest edit in effect at h says: an item for a block, applied or undone,
 * is about the addresses on the list at the block's height. Its apply and its undo then name the same
 * addresses, whenever each came.
 *
 * An address removed stays in the watching hooks' filters while its removal is recent (`lingering`): the
 * service then still sends the rollbacks of blocks it was on the list at, and the trigger keeps only those.
 * Edits below HISTORY_HEIGHTS under the tip are forgotten, and all but the newest HISTORY_EDITS: there, the list
 * is taken as it is now.
 *
 * Kept where the list is (listHook.ts), as filters no event matches (a burn of an NFT of a contract at the
 * network's boot address, which no one else deploys to), one per edit of an address, in the order of the
 * edits: `sender` the address, `value` the height, the asset's name whether it was added or removed.
 */
import type { EventFilter } from '../chainEvents';
import { BOOT_ADDRESSES, type Network } from '../constants';

/** How far below the tip edits are remembered, in heights: Stacks blocks of a few bitcoin blocks' tenures. */
export const HISTORY_HEIGHTS = 1000;

/**
 * How many edits of an address are remembered at most, the newest: each is a filter of the list's hook and of
 * every hook watching it (about 140 bytes), and a removed one keeps its address's filters there. An edit of
 * 10,000 addresses at once (an import, a replacement) would double a large list's hooks.
 */
export const HISTORY_EDITS = 1000;

export interface ListEdit {
	address: string;
	/** Added (on the list above `height`), or removed. */
	listed: boolean;
	/** The height the edit takes effect above. */
	height: number;
}

const CONTRACT = 'n8n-watch-list';
const EDIT_ASSET = new RegExp(`^[0-9A-Z]+\\.${CONTRACT}::(added|removed)$`);

export const editFilter = (network: Network, edit: ListEdit): EventFilter => ({
	type: 'nft_burn',
	asset_identifier: `${BOOT_ADDRESSES[network]}.${CONTRACT}::${edit.listed ? 'added' : 'removed'}`,
	sender: edit.address,
	value: edit.height,
});

/** The filters recording `edits`, in order. */
export const editFilters = (network: Network, edits: readonly ListEdit[]): EventFilter[] => edits.map((edit) => editFilter(network, edit));

/** Whether a filter records an edit (and selects nothing). */
export const isEditFilter = (filter: Record<string, unknown>) =>
	filter.type === 'nft_burn' && typeof filter.asset_identifier === 'string' && EDIT_ASSET.test(filter.asset_identifier);

/** The edits a hook's filters record, in order. */
export function editsOf(filters: ReadonlyArray<Record<string, unknown>>): ListEdit[] {
	const edits: ListEdit[] = [];
	for (const filter of filters) {
		if (!isEditFilter(filter) || typeof filter.sender !== 'string' || typeof filter.value !== 'number') continue;
		edits.push({ address: filter.sender, listed: EDIT_ASSET.exec(filter.asset_identifier as string)![1] === 'added', height: filter.value });
	}
	return edits;
}

/**
 * `edits` with those of an edit from `before` to `after` at `tip` (the chain's tip; undefined when no hook has
 * evaluated a block: no block was matched with the list, nothing to record), less those below HISTORY_HEIGHTS
 * under it and all but the newest HISTORY_EDITS (an edit's additions the newest of its own).
 */
export function recordedEdits(edits: readonly ListEdit[], before: readonly string[], after: readonly string[], tip: number | undefined): ListEdit[] {
	if (tip === undefined) return [...edits];
	const was = new Set(before);
	const is = new Set(after);
	const now = [
		...before.filter((address) => !is.has(address)).map((address) => ({ address, listed: false, height: tip })),
		...after.filter((address) => !was.has(address)).map((address) => ({ address, listed: true, height: tip })),
	];
	return [...edits, ...now].filter((edit) => edit.height >= tip - HISTORY_HEIGHTS).slice(-HISTORY_EDITS);
}

/** The addresses whose last remembered edit removed them. */
function removedLast(edits: readonly ListEdit[]): Set<string> {
	const last = new Map<string, boolean>();
	for (const edit of edits) last.set(edit.address, edit.listed);
	return new Set([...last].filter(([, listed]) => !listed).map(([address]) => address));
}

/** The addresses off the list whose removal is remembered: still in the watching hooks' filters. */
export function lingering(addresses: readonly string[], edits: readonly ListEdit[]): string[] {
	const listed = new Set(addresses);
	return [...removedLast(edits)].filter((address) => !listed.has(address));
}

/** The addresses of `selected` (a watching hook's) that are on the list now: those not removed last. */
export function listedNow(selected: Iterable<string>, edits: readonly ListEdit[]): Set<string> {
	const removed = removedLast(edits);
	return new Set([...selected].filter((address) => !removed.has(address)));
}

/** Which addresses are on a list at a height. */
export class ListAtHeights {
	private readonly edits = new Map<string, ListEdit[]>();

	/** `current`: the list now; `edits`: its remembered edits, in order. */
	constructor(
		readonly current: ReadonlySet<string>,
		edits: readonly ListEdit[],
	) {
		for (const edit of edits) {
			const own = this.edits.get(edit.address);
			if (own) own.push(edit);
			else this.edits.set(edit.address, [edit]);
		}
	}

	/** Whether any edit is remembered: the list is then not the same at every height. */
	get edited(): boolean {
		return this.edits.size > 0;
	}

	/**
	 * Whether `address` is on the list at `height`: as its latest edit taking effect below `height` says; before
	 * its first remembered edit, the opposite of that edit; with none remembered, as the list is now.
	 */
	has(address: string, height: number): boolean {
		const own = this.edits.get(address);
		if (!own) return this.current.has(address);
		let state = !own[0].listed;
		for (const edit of own) if (edit.height < height) state = edit.listed;
		return state;
	}
}
