/**
 * An edit of a watch list: addresses added and removed, kept at the service (listHook.ts), then
 * applied in place to every hook watching the list (a PATCH of its filters: same UUID, no
 * re-registration, nothing for its trigger to re-publish).
 *
 * The service has no conditional write, so an edit reads the list, changes it and writes it back.
 * Edits of one list in this n8n process take turns; an edit reads the list back after writing it, and
 * writes it again while its change is not all there (another process wrote over it), up to three times.
 */
import type { Definition, Hook } from '../schemas';
import { listHooks, readHook, registerHook, updateHook } from '../api/hookEndpoints';
import type { Connection } from '../transport/connection';
import type { RequestContext } from '../transport/context';
import type { EventFilter } from '../chainEvents';
import { inTurn } from '../turns';
import { addressesOf, findListHook, listDefinition, listDigest, watchedListOf, watchingFilters, withoutDigest } from './listHook';

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
	watchers: Array<{ uuid: string; name: string; updated: boolean }>;
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

/** Applies `change` to list `name` and to the hooks watching it; the list's hook is registered on its first address. */
export async function editList(ctx: RequestContext, connection: Connection, name: string, change: ListChange): Promise<EditResult> {
	return await inTurn(`watch list\u0000${connection.accountKey}\u0000${name}`, async () => {
		const options = { connection };
		let list = findListHook(await listHooks(ctx, options), name, connection.network);
		const before = list ? addressesOf(list) : [];
		let after = applied(before, change);
		if (!list) {
			if (after.length > 0) list = await registerHook(ctx, listDefinition(name, connection.network, after), options);
		} else {
			for (let write = 1; ; write++) {
				const current = addressesOf(list);
				after = applied(current, change);
				if (sameFilters(current, after)) break;
				if (write > WRITES) throw new Error(`The watch list "${name}" was written over by other edits ${WRITES} times in a row; nothing of this edit is kept. Try again.`);
				await updateHook(ctx, list.uuid, { filters: listDefinition(name, connection.network, after).filters }, options);
				const back = await readHook(ctx, list.uuid, options);
				if (!back) throw new Error(`The watch list "${name}" was deleted at the service while it was edited`);
				list = back;
			}
		}
		// Listed again after the list is written: a trigger activated meanwhile read the list before or after
		// this write; in the first case its hook is among these.
		const watchers = await updateWatchers(ctx, connection, await listHooks(ctx, options), name, after);
		return { before, after, ...(list && { listHookUuid: list.uuid }), watchers };
	});
}

/** Each hook watching list `name` gets the filters of `addresses`, in place, when its own differ. */
async function updateWatchers(ctx: RequestContext, connection: Connection, hooks: readonly Hook[], name: string, addresses: readonly string[]): Promise<EditResult['watchers']> {
	const results: EditResult['watchers'] = [];
	for (const hook of hooks) {
		const watched = watchedListOf(hook.definition.name);
		if (!watched || watched.name !== name || hook.definition.network !== connection.network) continue;
		const filters: EventFilter[] = watchingFilters(addresses, watched.kinds, connection.network);
		const updated = !sameFilters(hook.definition.filters.events, filters);
		// The filters and the digest in the name in one PATCH: a delivery names the list it was matched with.
		const renamed = withoutDigest(hook.definition.name).replace(/\]$/, ` | ${listDigest(addresses)}]`);
		if (updated) await updateHook(ctx, hook.uuid, { name: renamed, filters: { events: filters } as Definition['filters'] }, { connection });
		results.push({ uuid: hook.uuid, name: hook.definition.name, updated });
	}
	return results;
}
