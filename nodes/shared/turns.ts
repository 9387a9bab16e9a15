/**
 * One thing at a time per key in this n8n process: a trigger node's lifecycle and health check
 * (StacksHooksTrigger/turns.ts), the edits of one watch list (watchList/edit.ts).
 *
 * Written by hand: a mutex library would be a runtime dependency, which community nodes may not
 * have; this needs only a map of promises. It covers one process.
 */
const busy = new Map<string, Promise<unknown>>();

/** Resolves once the key's current turn, if any, has ended, without taking one; true when there was one to wait for. */
export async function afterTurn(key: string): Promise<boolean> {
	let waited = false;
	for (let current = busy.get(key); current; current = busy.get(key)) {
		waited = true;
		await current.catch(() => undefined);
	}
	return waited;
}

/** Runs `work` once the key's current turn, if any, has ended. */
export async function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
	// The wait is inline, not afterTurn(): nothing may be awaited between finding the key free and taking it,
	// or two waiters would both find it free.
	for (let current = busy.get(key); current; current = busy.get(key)) await current.catch(() => undefined);
	const turn = work();
	busy.set(key, turn);
	try {
		return await turn;
	} finally {
		if (busy.get(key) === turn) busy.delete(key);
	}
}

export const isBusy = (key: string) => busy.has(key);
