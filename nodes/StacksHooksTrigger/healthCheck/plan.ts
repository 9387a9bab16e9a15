/**
 * Step 3 of a health check (run.ts): which heights the workflow may have missed (model/gapPlan.ts,
 * from the hook as read and what n8n took), and which of them to replay now:
 * - at most the node's Catch-Up Limit in all: of a larger gap the newest heights are replayed and the
 *   older ones reported (tell.ts), to be backfilled;
 * - none within SETTLED_DEPTH of the highest height evaluated: they wait for the chain to move on;
 * - at most REPLAY_PER_CHECK, and the trigger's share of the spare half of the account's rate-limit window
 *   (transport/pacing.ts), oldest first; the next check comes soon for what is left;
 * - none while the workflow keeps failing on a delivery (replays would only feed it more): they wait.
 * The plan becomes the check's state in memory (model/checkState.ts); replay.ts keeps it and replays.
 */
import { pacerFor } from '../../shared/transport/pacing';
import { nodeKey } from '../nodeKey';
import type { GapPlan, Hooked } from './check';
import { addRange, planCheck, type Range, rangeSize, type Replay, takeHeights } from './model/gapPlan';
import { alertsOf } from './model/incidents';
import type { Heard } from './model/ownWebhook';
import { keptTaken } from './model/received';

/** Heights replayed in one check; more wait for the next, which comes soon. */
export const REPLAY_PER_CHECK = 100;
/** Heights this near the highest evaluated one are not replayed yet (see planGaps). */
export const SETTLED_DEPTH = 6;
/**
 * No delivery for this long (or half the check interval, if shorter) and the hook's stream is taken to be idle, not
 * behind (model/gapPlan.ts): a stream behind n8n's pace sends the next delivery as soon as n8n answers the one before, so only a
 * workflow that runs longer than this per delivery, with Respond: When the Workflow Finishes, looks idle while behind
 * (the plan then replays a window for nothing).
 */
export const IDLE_MS = 30_000;

const numberOr = (value: unknown, fallback: number | null): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** Keeps the newest `limit` heights of the pending ranges; what is older is returned as one range. */
function withinLimit(pending: Range[], limit: number): { kept: Range[]; over?: Range } {
	const size = rangeSize(pending);
	if (size <= limit) return { kept: pending };
	const { now: over, left: kept } = takeHeights(pending, size - limit);
	return { kept, over: [over[0][0], over[over.length - 1][1]] };
}

/** The plan of this check (its state set in the check's memory), for the hook that delivers after the repair. */
export function planGaps({ ctx, connection, memory, settings, hook: checked }: Hooked, heard: Heard): GapPlan {
	const { received } = heard;
	const readAt = checked.readAt ?? Date.now();
	const status = (checked.counted ?? {}) as Record<string, unknown>;
	const stoppedAt = checked.stoppedAt as Record<string, unknown> | undefined;
	const { state, found, soon, unjudged } = planCheck(memory.state, {
		now: readAt,
		hookId: checked.hookId,
		repaired: checked.repaired === true,
		...(checked.resumedFrom && { resumedFrom: checked.resumedFrom }),
		...(stoppedAt && {
			stopRecord: {
				height: numberOr(stoppedAt.last_evaluated_block_height, null),
				lastMatch: numberOr(stoppedAt.last_occurrence_block_height, null),
				...(checked.stoppedByActivation && { byActivation: true as const }),
			},
		}),
		evaluatedHeight: numberOr(status.last_evaluated_block_height, null),
		evaluatedCount: numberOr(status.evaluated_block_count, 0) ?? 0,
		occurrences: numberOr(status.occurrence_count, 0) ?? 0,
		taken: received?.taken,
		...(checked.repaired && { kept: keptTaken(ctx) }),
		...(received?.quietMs !== undefined && { quietMs: received.quietMs }),
		idleMs: Math.min(IDLE_MS, settings.intervalMs / 2),
		...(settings.atStartup && memory.unplanned && { lifeUnknown: true }),
	});
	memory.unplanned = undefined;
	const hold = alertsOf(memory.state).incidents.deliveryFailing !== undefined;
	const { kept: pending, over } = withinLimit(state.pending, settings.catchUpLimit);
	// Not too near the tip: a reorganisation there could undo a replayed block after the service had read it and before
	// it queued its delivery, so the delivery would come after the rollback. Those heights wait for the chain to move on.
	const settled = (state.previous?.height ?? Number.NEGATIVE_INFINITY) - SETTLED_DEPTH;
	const ready = pending.filter(([from]) => from <= settled).map(([from, to]): Range => [from, Math.min(to, settled)]);
	const waiting = pending.filter(([, to]) => to > settled).map(([from, to]): Range => [Math.max(from, settled + 1), to]);
	// Half of each rate-limit window is kept for everything else the account does, and the other half shared equally by
	// the triggers of the account that have heights to replay (transport/pacing.ts): oldest heights first within a hook.
	const spare = pacerFor(connection.accountKey).share(nodeKey(ctx), hold ? 0 : rangeSize(ready));
	const { now, left } = takeHeights(ready, hold ? 0 : Math.min(REPLAY_PER_CHECK, spare.requests));
	const replays: Replay[] = now.map(([from, to]) => ({ from, to, at: Date.now(), evaluated: 0 }));
	state.pending = [...left, ...waiting].reduce<Range[]>((ranges, range) => addRange(ranges, range), []);
	state.replays = [...state.replays, ...replays];
	memory.state = state;
	return {
		state,
		readAt,
		found,
		replays,
		waiting,
		hold,
		...(over && { over }),
		...(soon && { soon }),
		...(unjudged !== undefined && { unjudged }),
		...(spare.requests < REPLAY_PER_CHECK && { waitMs: spare.resetInMs }),
	};
}
