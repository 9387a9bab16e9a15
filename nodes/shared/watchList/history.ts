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
 * Edits more than HISTORY_HEIGHTS below the tip are forgotten: a block there is matched with the list as it
 * is now. Edits of any size are remembered whole within those heights.
 *
 * Kept where the list is (listHook.ts), as filters no event matches: calls of a contract at the network's boot
 * address, which no one else deploys to. One record says which addresses an edit added or removed, and the
 * height it takes effect above, in its function name: `added above 1234: 0-99 150`. The numbers are the
 * addresses' places among the hook's addresses, in the order its filters name them (`slots`): an edit of
 * 10,000 addresses appended at once is one short record, not 10,000 filters. Lists written before records were
 * kept per edit hold one `nft_burn` filter per address instead; they are read, and written anew at the next edit.
 */
import type { EventFilter } from '../chainEvents';
import { BOOT_ADDRESSES, type Network } from '../constants';

/** How far below the tip edits are remembered, in heights: Stacks blocks of a few bitcoin blocks' tenures. */
export const HISTORY_HEIGHTS = 1000;

export interface ListEdit {
	address: string;
	/** Added (on the list above `height`), or removed. */
	listed: boolean;
	/** The height the edit takes effect above. */
	height: number;
}

const CONTRACT = 'n8n-watch-list';
const RECORD = /^(added|removed) above (\d+): ([\d -]+)$/;
/** The longest function name a record takes; a larger edit takes several records. */
const RECORD_CHARACTERS = 2000;
/** The filters of lists written before records were kept per edit: one per address. */
const PER_ADDRESS = new RegExp(`^[0-9A-Z]+\\.${CONTRACT}::(added|removed)$`);

const recordContract = (network: Network) => `${BOOT_ADDRESSES[network]}.${CONTRACT}`;

/** Whether a filter records edits (and selects nothing). */
export function isEditFilter(filter: Record<string, unknown>): boolean {
	if (filter.type === 'contract_call') return typeof filter.contract_identifier === 'string' && filter.contract_identifier.endsWith(`.${CONTRACT}`) && typeof filter.function_name === 'string' && RECORD.test(filter.function_name);
	return filter.type === 'nft_burn' && typeof filter.asset_identifier === 'string' && PER_ADDRESS.test(filter.asset_identifier);
}

/**
 * Each address's edits as they bear on heights, from `edits` in the order they were made. At height h an address
 * is as the last edit made among those taking effect below h says; below all of them, the opposite of its first.
 * The result says the same at every height, in height order: one edit per height at most, each a change from the
 * one before it, the first a change from the opposite of itself. An edit made after one at a greater height wins
 * above its own (a reorganisation can lower the tip between two edits); edits that change nothing go.
 */
export function canonicalEdits(edits: readonly ListEdit[]): ListEdit[] {
	const byAddress = new Map<string, ListEdit[]>();
	for (const edit of edits) {
		const own = byAddress.get(edit.address);
		if (own) own.push(edit);
		else byAddress.set(edit.address, [edit]);
	}
	const kept: ListEdit[] = [];
	for (const [address, own] of byAddress) {
		const heights = [...new Set(own.map((edit) => edit.height))].sort((a, b) => a - b);
		let state = !own[0].listed;
		for (const height of heights) {
			// Above `height` (up to the next one): the last edit made among those at or below it.
			let listed = state;
			for (const edit of own) if (edit.height <= height) listed = edit.listed;
			if (listed === state) continue;
			state = listed;
			kept.push({ address, listed, height });
		}
	}
	return kept.sort((a, b) => a.height - b.height);
}

/** `indexes`, ascending, as ranges: `0-99 150`. */
function rangesOf(indexes: number[]): string[] {
	const ranges: string[] = [];
	for (let i = 0; i < indexes.length; ) {
		let j = i;
		while (j + 1 < indexes.length && indexes[j + 1] === indexes[j] + 1) j++;
		ranges.push(j === i ? String(indexes[i]) : `${indexes[i]}-${indexes[j]}`);
		i = j + 1;
	}
	return ranges;
}

/** The records of `edits` (canonical) for a hook whose addresses are `slots`, in that order: one per edit, or more for a long one. */
export function editFilters(network: Network, slots: readonly string[], edits: readonly ListEdit[]): EventFilter[] {
	const place = new Map(slots.map((address, index) => [address, index]));
	const groups = new Map<string, number[]>();
	for (const edit of edits) {
		const index = place.get(edit.address);
		if (index === undefined) continue;
		const key = `${edit.listed ? 'added' : 'removed'} above ${edit.height}`;
		const group = groups.get(key);
		if (group) group.push(index);
		else groups.set(key, [index]);
	}
	const filters: EventFilter[] = [];
	for (const [key, indexes] of groups) {
		let name = '';
		for (const range of rangesOf(indexes.sort((a, b) => a - b))) {
			if (name && name.length + range.length + 1 > RECORD_CHARACTERS) {
				filters.push({ type: 'contract_call', contract_identifier: recordContract(network), function_name: name });
				name = '';
			}
			name = name ? `${name} ${range}` : `${key}: ${range}`;
		}
		if (name) filters.push({ type: 'contract_call', contract_identifier: recordContract(network), function_name: name });
	}
	return filters;
}

/** The edits a hook's filters record (`slots`: its addresses, in the order its filters name them), canonical. */
export function editsOf(filters: ReadonlyArray<Record<string, unknown>>, slots: readonly string[]): ListEdit[] {
	const edits: ListEdit[] = [];
	for (const filter of filters) {
		if (!isEditFilter(filter)) continue;
		if (filter.type === 'nft_burn') {
			if (typeof filter.sender === 'string' && typeof filter.value === 'number') edits.push({ address: filter.sender, listed: PER_ADDRESS.exec(filter.asset_identifier as string)![1] === 'added', height: filter.value });
			continue;
		}
		const [, change, height, ranges] = RECORD.exec(filter.function_name as string)!;
		for (const range of ranges.split(' ')) {
			const [from, to = from] = range.split('-').map(Number);
			for (let index = from; index <= to && index < slots.length; index++) edits.push({ address: slots[index], listed: change === 'added', height: Number(height) });
		}
	}
	return canonicalEdits(edits);
}

/**
 * `edits` with those of an edit from `before` to `after`, canonical, less those more than HISTORY_HEIGHTS below the
 * tip. An address added is on the list above `tip` (the chain's tip as the edit first read it); one removed is off it
 * above `removedAbove`, `tip` unless the service matched later blocks with it. Undefined: no block was matched with
 * the list, nothing to record.
 */
export function recordedEdits(edits: readonly ListEdit[], before: readonly string[], after: readonly string[], tip: number | undefined, removedAbove = tip): ListEdit[] {
	const reference = tip ?? removedAbove;
	if (reference === undefined) return [...edits];
	const was = new Set(before);
	const is = new Set(after);
	const now = [
		...(removedAbove === undefined ? [] : before.filter((address) => !is.has(address)).map((address) => ({ address, listed: false, height: removedAbove }))),
		...(tip === undefined ? [] : after.filter((address) => !was.has(address)).map((address) => ({ address, listed: true, height: tip }))),
	];
	return canonicalEdits([...edits, ...now].filter((edit) => edit.height >= reference - HISTORY_HEIGHTS));
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

/** A list as the service keeps it: its addresses, in order, and its remembered edits. */
export interface ListState {
	addresses: readonly string[];
	edits: readonly ListEdit[];
}

/**
 * The list a hook's filters hold, `slots` being the addresses they name, in order: the edits they record, and
 * the addresses less those whose last remembered edit removed them.
 */
export function listStateIn(filters: ReadonlyArray<Record<string, unknown>>, slots: readonly string[]): ListState {
	const edits = editsOf(filters, slots);
	const listed = listedNow(slots, edits);
	return { addresses: slots.filter((address) => listed.has(address)), edits };
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
