/**
 * Step 3 of a health check (run.ts): which heights the workflow may have missed (planning/gapPlan.ts,
 * from the hook as read and what n8n took), and which of them to replay now:
 * - at most the node's Catch-Up Limit in all: of a larger gap the newest heights are replayed and the
 *   older ones reported (report.ts), to be backfilled;
 * - none within SETTLED_DEPTH of the highest height evaluated: they wait for the chain to move on;
 * - at most REPLAY_PER_CHECK, and the trigger's share of the spare half of the account's rate-limit window
 *   (transport/pacing.ts), oldest first; the next check comes soon for what is left;
 * - none while the workflow keeps failing on a delivery (replays would only feed it more): they wait.
 * The plan becomes the check's state in memory (channel/checkState.ts); replay.ts keeps it and replays.
 */
import { pacerFor } from '../../shared/transport/pacing';
import { nodeKey } from '../nodeMemory';
import type { GapPlan, Hooked } from './check';
import type { Observation } from './planning/gapState';
import { alertsOf } from './planning/incidents';
import { planReplays } from './planning/schedule';
import type { Heard } from './channel/ownWebhook';
import { keptTaken } from './channel/received';

/** Heights replayed in one check; more wait for the next, which comes soon. */
export const REPLAY_PER_CHECK = 100;
/** Heights this near the highest evaluated one are not replayed yet (see planGaps). */
export const SETTLED_DEPTH = 6;
/**
 * No delivery for this long (or half the check interval, if shorter) and the hook's stream is taken to be idle, not
 * behind (planning/gapPlan.ts): a stream behind n8n's pace sends the next delivery as soon as n8n answers the one before, so only a
 * workflow that runs longer than this per delivery, with Respond: When the Workflow Finishes, looks idle while behind
 * (the plan then replays a window for nothing).
 */
export const IDLE_MS = 30_000;

/** What the plan reads of this check: the hook as step 2 found it, and what step 1 heard. */
function observe({ ctx, memory, settings, hook: checked }: Hooked, heard: Heard): Observation {
	const { received } = heard;
	const status = checked.counted;
	const { stoppedAt } = checked;
	return {
		now: checked.readAt ?? Date.now(),
		hookId: checked.kept.hookId,
		repaired: checked.repaired === true,
		...(checked.resumedFrom && { resumedFrom: checked.resumedFrom }),
		...(stoppedAt && {
			stopRecord: {
				height: stoppedAt.last_evaluated_block_height ?? null,
				lastMatch: stoppedAt.last_occurrence_block_height ?? null,
				...(checked.stoppedByActivation && { byActivation: true as const }),
			},
		}),
		evaluatedHeight: status?.last_evaluated_block_height ?? null,
		evaluatedCount: status?.evaluated_block_count ?? 0,
		occurrences: status?.occurrence_count ?? 0,
		taken: received?.taken,
		...(checked.repaired && { kept: keptTaken(ctx) }),
		...(received?.quietMs !== undefined && { quietMs: received.quietMs }),
		idleMs: Math.min(IDLE_MS, settings.intervalMs / 2),
		...(settings.atStartup && memory.begunFrom === 'nothing' && { lifeUnknown: true }),
		...(settings.atStartup && memory.begunFrom === 'kept' && { startedSinceKept: true }),
	};
}

/** The plan of this check (its state set in the check's memory), for the hook that delivers after the repair. */
export function planGaps(check: Hooked, heard: Heard): GapPlan {
	const { ctx, service, memory, settings } = check;
	const seen = observe(check, heard);
	const hold = alertsOf(memory.state).incidents.deliveryFailing !== undefined;
	// Half of each rate-limit window is kept for everything else the account does, and the other half shared equally by
	// the triggers of the account that have heights to replay (transport/pacing.ts).
	const pacer = pacerFor(service.connection.accountKey);
	const planned = planReplays(memory.state, seen, {
		catchUpLimit: settings.catchUpLimit,
		settledDepth: SETTLED_DEPTH,
		perCheck: REPLAY_PER_CHECK,
		hold,
		budget: (heights) => pacer.share(nodeKey(ctx), heights),
		startedAt: Date.now(),
	});
	memory.begunFrom = undefined;
	memory.state = planned.state;
	return { ...planned, readAt: seen.now, hold };
}
