/**
 * Which of a check's pending heights to replay now (the Catch-Up Limit, the settled depth, the rate limit), after the gap plan (gapPlan.ts).
 */
import { planCheck } from './gapPlan';
import type { GapState, Observation, Plan, Range, Replay } from './gapState';
import { addRange, rangeSize, takeHeights } from './windows';

/** What a check may replay now (../plan.ts gives them). */
export interface Limits {
	/** The most heights replayed for one gap (the Catch-Up Limit): of a larger gap the newest, the older reported. */
	catchUpLimit: number;
	/** Heights this near the highest evaluated one wait for the chain to move on. */
	settledDepth: number;
	/** Heights replayed in one check at the most; more wait for the next, which comes soon. */
	perCheck: number;
	/** Nothing replayed now (the workflow keeps failing on a delivery): replays would only feed it more. */
	hold: boolean;
	/** The requests the account's rate limit spares this check for `heights` ready heights, and when its window resets. */
	budget: (heights: number) => { requests: number; resetInMs: number };
	/** When the replays begin (the check's clock): their `at`. */
	startedAt: number;
}

/** A check's plan with the heights to replay now. */
export interface Scheduled extends Plan {
	/** Replayed now, in this order. */
	replays: Replay[];
	/** Near the tip: waiting for the chain to move on. */
	waiting: Range[];
	/** Older heights of a gap over the Catch-Up Limit, not replayed. */
	over?: Range;
	/** How long to wait before the next check, when the rate-limit window's spare budget ran short. */
	waitMs?: number;
}

/**
 * The plan of one check, and which of its pending heights to replay now, oldest first: at most the Catch-Up Limit in all
 * (of a larger gap the newest heights; the older ones reported as `over`), none within `settledDepth` of the highest
 * height evaluated (a reorganisation there could undo a replayed block after the service read it and before it queued
 * its delivery, which would then come after the rollback), at most `perCheck` and the budget the rate limit spares.
 */
export function planReplays(before: GapState, seen: Observation, limits: Limits): Scheduled {
	const plan = planCheck(before, seen);
	const { state } = plan;
	let pending = state.pending;
	let over: Range | undefined;
	const size = rangeSize(pending);
	if (size > limits.catchUpLimit) {
		const { now: older, left } = takeHeights(pending, size - limits.catchUpLimit);
		pending = left;
		over = [older[0][0], older[older.length - 1][1]];
	}
	const settled = (state.previous?.height ?? Number.NEGATIVE_INFINITY) - limits.settledDepth;
	const ready = pending.filter(([from]) => from <= settled).map(([from, to]): Range => [from, Math.min(to, settled)]);
	const waiting = pending.filter(([, to]) => to > settled).map(([from, to]): Range => [Math.max(from, settled + 1), to]);
	const spare = limits.budget(limits.hold ? 0 : rangeSize(ready));
	const { now, left } = takeHeights(ready, limits.hold ? 0 : Math.min(limits.perCheck, spare.requests));
	const replays: Replay[] = now.map(([from, to]) => ({ from, to, at: limits.startedAt, evaluated: 0 }));
	state.pending = [...left, ...waiting].reduce<Range[]>((ranges, range) => addRange(ranges, range), []);
	state.replays = [...state.replays, ...replays];
	return { ...plan, replays, waiting, ...(over && { over }), ...(spare.requests < limits.perCheck && { waitMs: spare.resetInMs }) };
}
