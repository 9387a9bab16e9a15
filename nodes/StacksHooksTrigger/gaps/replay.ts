/**
 * Step 4 of a health check (hook/healthCheck.ts): the plan kept, then replayed. Kept first, at the
 * trigger's own webhook (ownWebhook.ts) and in this process's memory, with the replays listed: a
 * delivery they bring is then known for one (received.ts), and a restart of n8n meanwhile replays again
 * rather than forgets. Then one evaluation per height (`POST /me/{uuid}/evaluate`), paced by the transport
 * within the account's rate limit; stopped between two heights when n8n closes the trigger, and on the
 * first error (the rest waits for the next check).
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import { evaluateHook } from '../../shared/api/hookEndpoints';
import type { Connection } from '../../shared/transport/connection';
import { isNotFound } from '../../shared/transport/errors';
import type { CheckState } from './checkState';
import { exchange } from './ownWebhook';
import { addRange, floorOf, type Finding, isShort, type Range, rangeSize } from './plan';
import type { GapPlan } from './planGaps';
import { localReceived, type Received } from './received';

export interface GapOutcome {
	found: Finding[];
	replayed: number;
	/** Heights ready to replay and not replayed yet (the next check comes soon); those near the tip wait apart. */
	left: number;
	/** How long to wait before the next check, when the rate-limit window's spare budget ran out. */
	waitMs?: number;
	/** The next check had better come soon (plan.ts): a block may be missing, and the check after this one would tell. */
	soon?: boolean;
	/** Heights of a gap over the Catch-Up Limit that the trigger does not replay. */
	overLimit?: Range;
	/** The gap over the limit reaches back to the hook's first block for want of any record of what arrived (plan.ts). */
	overLimitUnknown?: true;
	/** Why what n8n took could not be known this time (its own webhook could not be reached, nothing taken here). */
	blind?: string;
	/** While blind: the matches the service counted since the check before, which nothing could be held against. */
	unjudged?: number;
	/** The trigger's webhook could not be reached, and the check counted what this process took itself: why. */
	unreachable?: string;
	/** What that call failed with (blind or unreachable). */
	callError?: string;
	/** The replay stopped on an error (the service refused or could not be reached); what it said. */
	replayError?: string;
	/** What n8n took, as the check saw it (the delivery that keeps coming back, for alerts.ts). */
	received?: Received;
	/**
	 * Heights kept apart because the notes heard never held a delivery (plan.ts, `unheard`): where the check heard them, and
	 * whether that was this process itself.
	 */
	unheard?: { range: Range; at?: string; here?: true };
	/** Where the check heard its webhook, when not at the webhook URL but where this process took a delivery (ownWebhook.ts). */
	nearby?: string;
	/** Unreachable, and no delivery taken yet to call it where one came in (ownWebhook.ts). */
	awaitingDelivery?: true;
}

export async function replayGaps(
	ctx: ITriggerFunctions,
	connection: Connection,
	memory: CheckState,
	plan: GapPlan,
	opts: { hookId: string; internalAddress: string; stillOpen: () => boolean },
): Promise<GapOutcome> {
	const { state, replays, waiting, over, hold, found } = plan;
	const { received, blind, unreachable, callError, at, here, nearby, awaitingDelivery } = plan.heard;
	// When the webhook could not be reached a moment ago, not tried again: the state stays in this process's memory
	// (checkState.ts), where its own deliveries find the replays listed, and what it took is read there again.
	const after = blind ? undefined : unreachable ? { received: localReceived(ctx, floorOf(state)) } : await exchange(ctx, connection, memory, opts.internalAddress);
	// A window short when the hook was read may have had its last delivery on the way: asked again a moment later (this
	// call costs the service nothing), a block that came meanwhile spares the early check. Only the timing of the next
	// check depends on it; the window is judged later, on what was heard before a read.
	const closing = state.windows.find((window) => window.closedAt === plan.readAt);
	const soonNow = plan.soon === true && !(closing && after?.received && !isShort(closing, after.received.taken));

	let replayed = 0;
	let replayError: string | undefined;
	for (const replay of replays) {
		for (let height = replay.from; height <= replay.to; height++) {
			if (replayError !== undefined || !opts.stillOpen()) {
				state.pending = addRange(state.pending, [height, replay.to]);
				break;
			}
			try {
				await evaluateHook(ctx, opts.hookId, { block_height: height }, { connection });
				replay.evaluated++;
				replayed++;
			} catch (error) {
				// Gone (deactivated, deleted): the next check sees to the hook. Anything else: tried again at the next check.
				replayError = isNotFound(error) ? `hook ${opts.hookId} is gone` : (error as Error).message;
				state.pending = addRange(state.pending, [height, replay.to]);
				break;
			}
		}
	}
	return {
		found,
		replayed,
		// What could be replayed now and was not (the per-check bound, an error): the next check comes soon for it, once the
		// rate-limit window has room again if it had none. Held (the workflow keeps failing on a delivery): they wait, as
		// those near the tip do.
		left: hold ? 0 : Math.max(0, rangeSize(state.pending) - rangeSize(waiting)),
		...(plan.waitMs !== undefined && { waitMs: plan.waitMs }),
		...(soonNow && { soon: true }),
		...(over && { overLimit: over }),
		...(over && found.some((finding) => finding.kind === 'stopped' && finding.fromHookStart && finding.range[0] <= over[1]) && { overLimitUnknown: true as const }),
		...(blind && { blind }),
		...(plan.unjudged !== undefined && { unjudged: plan.unjudged }),
		...(unreachable && { unreachable }),
		...(callError && { callError }),
		...(replayError && { replayError }),
		...(received && { received }),
		...(state.unheard && { unheard: { range: state.unheard.range, ...(at && { at }), ...(here && { here }) } }),
		...(nearby && at && { nearby: at }),
		...(awaitingDelivery && { awaitingDelivery }),
	};
}
