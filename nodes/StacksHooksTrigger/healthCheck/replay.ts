/**
 * Step 4 of a health check (run.ts): the plan kept, then replayed. Kept first, at the trigger's own
 * webhook (channel/ownWebhook.ts) and in this process's memory, with the replays listed: a delivery they
 * bring is then known for one (channel/received.ts), and a restart of n8n meanwhile replays again rather
 * than forgets. Then one evaluation per height (`POST /me/{uuid}/evaluate`), paced by the transport
 * within the account's rate limit; stopped between two heights when n8n closes the trigger, and on the
 * first error (the rest waits for the next check).
 */
import { isNotFound } from '../../shared/transport/errors';
import type { GapPlan, Hooked, Replayed } from './check';
import { addRange, isShort, rangeSize } from './planning/windows';
import { exchange, type Heard } from './channel/ownWebhook';

export async function replay(check: Hooked, heard: Heard, plan: GapPlan): Promise<Replayed> {
	const { hook } = check;
	const { state, replays, waiting, hold } = plan;
	// When the webhook could not be reached a moment ago, not tried again: the state stays in this process's memory
	// (channel/checkState.ts), where its own deliveries find the replays listed, and what it took is read there again.
	const after = heard.blind ? undefined : await exchange(check, hook.kept, heard.unreachable ? 'local' : 'once');
	// A window short when the hook was read may have had its last delivery on the way: asked again a moment later (this
	// call costs the service nothing), a block that came meanwhile spares the early check. Only the timing of the next
	// check depends on it; the window is judged later, on what was heard before a read.
	const closing = state.windows.find((window) => window.closedAt === plan.readAt);
	const soon = plan.soon === true && !(closing && after?.received && !isShort(closing, after.received.taken));

	let replayed = 0;
	let replayError: string | undefined;
	for (const entry of replays) {
		const { from, to } = entry;
		for (let height = from; height <= to; height++) {
			if (replayError !== undefined || !check.stillOpen()) {
				state.pending = addRange(state.pending, [height, to]);
				break;
			}
			try {
				await check.service.evaluate(hook.kept.hookId, { block_height: height });
				entry.evaluated++;
				replayed++;
			} catch (error) {
				// Gone (deactivated, deleted): the next check sees to the hook. Anything else: tried again at the next check.
				replayError = isNotFound(error) ? `hook ${hook.kept.hookId} is gone` : (error as Error).message;
				state.pending = addRange(state.pending, [height, to]);
				break;
			}
		}
	}
	return {
		replayed,
		// What could be replayed now and was not (the per-check bound, an error): the next check comes soon for it, once the
		// rate-limit window has room again if it had none. Held (the workflow keeps failing on a delivery): they wait, as
		// those near the tip do.
		left: hold ? 0 : Math.max(0, rangeSize(state.pending) - rangeSize(waiting)),
		...(soon && { soon: true as const }),
		...(replayError && { replayError }),
	};
}
