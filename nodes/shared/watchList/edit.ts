/**
 * An edit of a watch list: addresses added and removed, kept at the service (listHook.ts), then
 * applied in place to every hook watching the list (a PATCH of its filters: same UUID, no
 * re-registration, nothing for its trigger to re-publish).
 *
 * The service has no conditional write, so an edit reads the list, changes it and writes it back.
 * Edits of one list in this n8n process take turns; an edit reads the list back after writing it, and
 * writes it again while its change is not all there (another process wrote over it), up to three times.
 *
 * Each edit is recorded with the height it takes effect above (history.ts): the list and its watching hooks keep
 * the records of the last HISTORY_HEIGHTS heights, and a removed address's filters as long, so that a block
 * undone or replayed later is matched with the list as it was at its height. An edit misses nothing: the blocks
 * the service matched without it while it ran are evaluated again (editList, replayMissed).
 *
 * A watching hook holds one filter per address and kind while the service takes that many; refused as too
 * large, it takes the filters that select the kinds for any address instead, the trigger matching the list
 * (listHook.ts). It stays so while the list grows; an edit that shortens the list tries one filter per
 * address again.
 */
import type { Definition, Hook } from '../schemas';
import type { HooksClient } from '../api/client';
import { inTurn } from '../turns';
import { type ListState, recordedEdits } from './history';
import { addressesOf, findListHook, inN8nFilters, listDefinition, listDigest, listStateOf, watchedListOf, watchingFilters, watchMarker } from './listHook';
import { refusedForSize } from './refusal';

export interface ListChange {
	add: readonly string[];
	remove: readonly string[];
	/** The list becomes exactly `add` (a list kept elsewhere, such as a Data Table, brought in step). */
	replace?: boolean;
}

export interface EditResult {
	/** The list as it was before the edit, and as it is now. */
	before: string[];
	after: string[];
	/** The list's own hook (undefined for a list that never held an address and still holds none). */
	listHookUuid?: string;
	/** The hooks watching the list, each updated in place when its filters changed. */
	watchers: Watcher[];
	/** Heights evaluated again on the watching hooks: blocks the service evaluated while the edit ran, with addresses added. */
	replayed?: { from: number; to: number };
}

export interface Watcher {
	uuid: string;
	name: string;
	updated: boolean;
	/** The highest height the hook had evaluated when its update took effect: blocks up to it were matched without the edit. */
	evaluatedBefore?: number;
	/** How many blocks it had evaluated then. */
	evaluatedCount?: number;
}

const WRITES = 3;

function applied(addresses: readonly string[], change: ListChange): string[] {
	const removed = new Set(change.remove);
	const kept = change.replace ? [] : addresses.filter((address) => !removed.has(address));
	const present = new Set(kept);
	for (const address of change.add) {
		if (!removed.has(address) && !present.has(address)) {
			kept.push(address);
			present.add(address);
		}
	}
	return kept;
}

const sameFilters = (a: readonly unknown[], b: readonly unknown[]) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The height an edit takes effect above (history.ts): the chain's tip, as the highest height any of the
 * account's hooks on the network has evaluated, the hooks watching the list among them (one of them stopped
 * still gets the heights it missed matched with the list as it was). Undefined when none has evaluated a block.
 */
export function evaluatedTip(hooks: readonly Hook[], network: string): number | undefined {
	let tip: number | undefined;
	for (const hook of hooks) {
		const height = evaluatedHeight(hook);
		if (hook.definition.network === network && height !== undefined && (tip === undefined || height > tip)) tip = height;
	}
	return tip;
}

/** The highest height the hook has evaluated, as its status says; undefined before its first block. */
const evaluatedHeight = (hook: Hook | undefined) => hook?.status.last_evaluated_block_height ?? undefined;

/**
 * Applies `change` to list `name` and to the hooks watching it; the list's hook is registered on its first address.
 *
 * An address added is on the list above the chain's tip as the edit first read it: blocks the service matched
 * without it after that are evaluated again (replayMissed). An address removed stays on the list up to the height
 * the service had evaluated when the watching hooks took the edit, as the service matched those blocks with it: its
 * removal is recorded at the tip first, then at that height once the hooks' answers tell it (a second write, only
 * when a block came in between).
 */
export async function editList(service: HooksClient, name: string, change: ListChange): Promise<EditResult> {
	const { connection } = service;
	return await inTurn(`watch list\u0000${connection.accountKey}\u0000${name}`, async () => {
		const hooks = await service.list();
		let list = findListHook(hooks, name, connection.network);
		const before = list ? addressesOf(list) : [];
		const tip = evaluatedTip(hooks, connection.network);
		// The list as this edit found it when it last wrote it: a second write records the removals from there.
		let found: ListState = { addresses: before, edits: [] };
		const edited = (from: ListState): ListState => {
			const addresses = applied(from.addresses, change);
			const to = { addresses, edits: recordedEdits(from.edits, from.addresses, addresses, tip) };
			if (!sameState(from, to)) found = from;
			return to;
		};
		let state = edited({ addresses: before, edits: [] });
		if (!list) {
			if (state.addresses.length > 0) {
				list = await keptOrRefused(name, before.length, state.addresses.length, async () => await service.register(listDefinition(name, connection.network, state)));
			}
		} else ({ list, state } = await rewritten(service, name, list, edited));
		// Listed again after the list is written: a trigger activated meanwhile read the list before or after
		// this write; in the first case its hook is among these.
		const hooksNow = await service.list();
		const tipNow = evaluatedTip(hooksNow, connection.network);
		const watchers = await updateWatchers(service, hooksNow, name, state, state.addresses.length < before.length);
		const is = new Set(state.addresses);
		const removed = new Set(before.filter((address) => !is.has(address)));
		// The highest height a watching hook had evaluated when it took the edit (none updated: -1, nothing to move).
		const tookEffect = Math.max(-1, ...watchers.filter((watcher) => watcher.updated).map((watcher) => watcher.evaluatedBefore ?? tipNow ?? -1));
		if (list && removed.size > 0 && tookEffect > (tip ?? -1)) {
			// Blocks up to `tookEffect` were matched with the removed addresses: they stay on the list up to there. (With no
			// tip, the edit recorded nothing: no block had been matched with the list before it.)
			const later = (from: ListState): ListState => ({ addresses: from.addresses, edits: recordedEdits(found.edits, found.addresses, from.addresses, tip, tookEffect) });
			({ list, state } = await rewritten(service, name, list, later));
			await updateWatchers(service, hooksNow, name, state, true);
		}
		const had = new Set(before);
		const added = state.addresses.some((address) => !had.has(address));
		const replayed = await replayMissed(service, watchers, tip, tipNow, added);
		return { before, after: [...state.addresses], ...(list && { listHookUuid: list.uuid }), watchers, ...(replayed && { replayed }) };
	});
}

/** Whether two states of a list are the same: its addresses in order, and its edits in any order. */
function sameState(a: ListState, b: ListState): boolean {
	const edits = (state: ListState) => state.edits.map((edit) => `${edit.address} ${edit.listed} ${edit.height}`).sort();
	return sameFilters(a.addresses, b.addresses) && sameFilters(edits(a), edits(b));
}

/**
 * The list's hook written with `edited` of its state, read back, and written again while another process wrote over
 * it (the service has no conditional write), up to WRITES times.
 */
async function rewritten(service: HooksClient, name: string, list: Hook, edited: (from: ListState) => ListState): Promise<{ list: Hook; state: ListState }> {
	for (let write = 1; ; write++) {
		const current = listStateOf(list);
		const state = edited(current);
		if (sameState(current, state)) return { list, state: current };
		if (write > WRITES) throw new Error(`The watch list "${name}" was written over by other edits ${WRITES} times in a row; nothing of this edit is kept. Try again.`);
		await keptOrRefused(name, current.addresses.length, state.addresses.length, async () => await service.update(list.uuid, { filters: listDefinition(name, service.connection.network, state).filters }));
		const back = await service.read(list.uuid);
		if (!back) throw new Error(`The watch list "${name}" was deleted at the service while it was edited`);
		list = back;
	}
}

/**
 * A hook just registered to watch list `name`, shaped by a read of the list at chain tip `tipAtRead`: an edit that
 * wrote the list after that read, and listed the hooks before this one existed, did not update it. The list is read
 * again; when it moved, the hook takes it in place, and the heights it evaluated without it are evaluated again.
 * One request when nothing moved.
 */
export async function followList(service: HooksClient, hook: Hook, name: string, tipAtRead: number | undefined): Promise<void> {
	const hooks = await service.list();
	const list = findListHook(hooks, name, service.connection.network);
	const watched = watchedListOf(hook.definition.name);
	if (!list || !watched) return;
	const state = listStateOf(list);
	if (listDigest(state) === watched.digest) return;
	const watchers = await updateWatchers(service, [hook], name, state, false);
	await replayMissed(service, watchers, tipAtRead, undefined, true);
}

/** Heights an edit evaluates again at most, each a request per watching hook. */
const MAX_REPLAYED = 100;

/**
 * Blocks the service matched with the list before the edit, though they came after the height it takes effect
 * above (`tip`): each evaluated again, once, on each hook watching the list, now that it has the edit, so that the
 * addresses `added` get their events there (the others' come again, with the same ids). For an updated hook, they
 * are the heights up to the one it had evaluated when its update took effect (the update's answer says it); for
 * one whose filters already held the edit, up to `tipNow`, the tip read before the watching hooks were updated.
 */
async function replayMissed(
	service: HooksClient,
	watchers: readonly Watcher[],
	tip: number | undefined,
	tipNow: number | undefined,
	added: boolean,
): Promise<EditResult['replayed']> {
	if (!added) return undefined;
	let replayed: EditResult['replayed'];
	for (const { uuid, updated, evaluatedBefore, evaluatedCount } of watchers) {
		let to: number;
		let first: number;
		if (tip !== undefined) {
			to = Math.max(tipNow ?? tip, updated ? (evaluatedBefore ?? tip) : tip);
			first = tip + 1;
		} else {
			// No hook had evaluated a block when the edit began: every block this one had evaluated came during the edit.
			if (!updated || evaluatedBefore === undefined) continue;
			to = evaluatedBefore;
			first = evaluatedBefore - (evaluatedCount ?? 1) + 1;
		}
		const from = Math.max(first, to - MAX_REPLAYED + 1);
		for (let height = from; height <= to; height++) await service.evaluate(uuid, { block_height: height });
		if (from <= to) replayed = { from: Math.min(from, replayed?.from ?? from), to: Math.max(to, replayed?.to ?? to) };
	}
	return replayed;
}

/**
 * A write of the list's own hook (one filter per address): refused for its size, an error that says the list is
 * unchanged and what to do, with the service's words. How large a hook the service takes is not public; the
 * emulator's 1 MiB body limit holds about 14,900 addresses (70 bytes each, lately removed ones included); an edit's
 * record adds a few bytes per run of addresses (history.ts).
 */
async function keptOrRefused<T>(name: string, before: number, after: number, write: () => Promise<T>): Promise<T> {
	try {
		return await write();
	} catch (error) {
		throw listRefusal(error, name, before, after);
	}
}

/** The error of a refused write of the list's hook: said with both sizes when its size is why, else the error as it came. */
function listRefusal(error: unknown, name: string, before: number, after: number): Error {
	if (!refusedForSize(error)) return error as Error;
	const words = error.description && !error.message.includes(error.description) ? `${error.message}. ${error.description}` : error.message;
	const kept = before === 0 ? 'the list holds no address yet' : `the list still holds its ${before} addresses`;
	return new Error(
		`The watch list "${name}" would hold ${after} addresses, and the service refused its hook as too large: ${words}. Nothing of this edit is kept: ${kept}. Keep each list below that size: split the addresses among several lists, each watched by a trigger of its own.`,
	);
}

/**
 * Each hook watching list `name` gets the filters of `addresses`, in place, when its own differ. `shortened`: the
 * list lost addresses, so a hook matched in n8n tries one filter per address again.
 */
async function updateWatchers(service: HooksClient, hooks: readonly Hook[], name: string, list: ListState, shortened: boolean): Promise<Watcher[]> {
	const { network } = service.connection;
	const results: Watcher[] = [];
	const addresses = list.addresses;
	for (const hook of hooks) {
		const watched = watchedListOf(hook.definition.name);
		if (!watched || watched.name !== name || hook.definition.network !== network) continue;
		const perAddress = watchingFilters(list, watched.kinds, network);
		const inN8n = inN8nFilters(list, watched.kinds, network, perAddress);
		// The filters and the digest in the name in one PATCH: a delivery names the list it was matched with.
		const prefix = hook.definition.name.slice(0, hook.definition.name.lastIndexOf(' [watch list: '));
		const shape = (matched: boolean) => ({ name: `${prefix}${watchMarker(name, watched.kinds, list, matched)}`, filters: { events: matched ? inN8n! : perAddress } as Definition['filters'] });
		const write = async (matched: boolean) => {
			const update = shape(matched);
			const updated = update.name !== hook.definition.name || !sameFilters(hook.definition.filters.events, update.filters.events);
			if (!updated) return void results.push({ uuid: hook.uuid, name: hook.definition.name, updated });
			// The update's answer is the hook as the update left it; a read after it tells as much when the answer is not a hook.
			const answer = (await service.update(hook.uuid, update)) ?? (await service.read(hook.uuid));
			results.push({ uuid: hook.uuid, name: hook.definition.name, updated, evaluatedBefore: evaluatedHeight(answer), evaluatedCount: answer?.status.evaluated_block_count ?? undefined });
		};
		if (inN8n && watched.inN8n && !shortened) {
			await write(true);
			continue;
		}
		try {
			await write(false);
		} catch (error) {
			if (!inN8n || !refusedForSize(error)) throw watcherRefusal(error, hook, name, addresses.length, perAddress.length);
			try {
				await write(true);
			} catch (again) {
				throw watcherRefusal(again, hook, name, addresses.length, inN8n.length);
			}
		}
	}
	return results;
}

/** The list is kept; the hook watching it could not follow: said with the service's words, and what the trigger watches meanwhile. */
function watcherRefusal(error: unknown, hook: Hook, name: string, addresses: number, filters: number): Error {
	if (!refusedForSize(error)) return error as Error;
	return new Error(
		`The watch list "${name}" now holds ${addresses} addresses, and the service refused hook ${hook.uuid} (${hook.definition.name}) of ${filters} filters as too large: ${error.message}. The list is kept; that hook still watches the list as it was before this edit. Watch the list for fewer kinds (balance changes take one filter per address), or remove addresses.`,
	);
}
