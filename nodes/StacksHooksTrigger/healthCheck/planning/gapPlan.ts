/**
 * Which heights the workflow may have missed, decided at each check. It compares what the service says it
 * matched (the hook's `occurrence_count`) with what n8n's processes took (../channel/received.ts).
 *
 * This file is pure: no request and no clock. The check (../plan.ts) gathers the inputs, keeps the state,
 * and replays what this plans. What n8n took is heard before the service is read (step 1 in ../run.ts), so every
 * block counted was evaluated before that read.
 *
 * docs/nothing-missed.md explains the rules and what they assume of the service, for users and
 * maintainers alike: the two ways a block goes missing, windows, counts that prove nothing, and notes
 * that prove nothing. Each rule below names its case in bold, with what it rests on. The property test
 * (test/suites/engine/gapPlan.property.test.ts) holds the plan against a model of the service and n8n.
 */
import { FIRST_WINDOW_MAX, type GapState, type Observation, type Plan, type Range, REORG_MARGIN, type TakenDelivery, type Window } from './gapState';
import { add, addRange, atLeastZero, evaluatedBy, evaluatedTop, highestTaken, isShort, judgeWindows, lowestTakenAbove, type Planning, sayDry, takenIn, unanswered, verifiedTo } from './windows';

/**
 * For a hook found deleted (no height read), the highest height known evaluated before it stopped: registered anew by
 * this check, every block taken so far came from it; registered anew by activation (its record without a height), only
 * what the static data kept from before.
 */
function deletedTop(seen: Observation): number {
	const before = seen.stopRecord ? (seen.stopRecord.height ?? highestTaken(seen.kept ?? [])) : highestTaken([...(seen.taken ?? []), ...(seen.kept ?? [])]);
	return before ?? 0;
}

/**
 * Where a stopped hook's gap begins: the lowest candidate (a height known complete, less the reorganisation margin; the
 * highest block taken before the stop; an earlier stop's start). With nothing known of what arrived before (the first
 * start of this version, the static data lost), a hook short-lived enough is taken from its first block, which is
 * certain (`fromHookStart`); an older one from the service's own record: its last match before it stopped (the delivery
 * it gave up on was of that block or of one before; the reorganisation margin below it). The service's record does not
 * tell whether deliveries failed before that one: `unknownStart` says what it was taken from, for the alert.
 */
function startUnknown(seen: Observation, before: GapState['stopped'], candidates: number[], known: boolean): Pick<NonNullable<GapState['stopped']>, 'from' | 'fromHookStart' | 'unknownStart'> {
	const young = firstCheckStart(seen);
	const inherited = before?.unknownStart ? { unknownStart: before.unknownStart } : before?.fromHookStart ? { fromHookStart: true as const } : {};
	if (candidates.length > 0) return { from: Math.min(...candidates), ...(!known && (young !== undefined ? { fromHookStart: true as const } : inherited)) };
	const record = seen.stopRecord;
	const stoppedAt = record?.height ?? seen.evaluatedHeight;
	if (stoppedAt === null || stoppedAt === undefined) return { from: 0 };
	const lastMatch = record?.lastMatch ?? undefined;
	return { from: atLeastZero(Math.min(lastMatch ?? stoppedAt, stoppedAt) + 1 - REORG_MARGIN), unknownStart: { stoppedAt, ...(lastMatch !== undefined && { lastMatch }) } };
}

/** Below the first height a hook evaluated, when it has evaluated few enough to be verified from there (FIRST_WINDOW_MAX). */
function firstCheckStart(seen: Observation): number | undefined {
	if (seen.evaluatedHeight === null || seen.evaluatedCount > FIRST_WINDOW_MAX) return undefined;
	return atLeastZero(seen.evaluatedHeight - seen.evaluatedCount);
}

/** The counts read now, for the next check to go on from. */
const readNow = (seen: Observation, height: number) => ({ occurrences: seen.occurrences, evaluated: seen.evaluatedCount, height, at: seen.now });

/**
 * The plan of one check. Which case it is decides the rule, each a function below with the rule and what it rests on:
 * a hook brought back (`planRepaired`), another hook (`startAnew`), a stopped hook's gap closing (`planStopped`), n8n's
 * side unknown (`planBlind`), and the ordinary check, its windows judged (`planWindows`).
 */
export function planCheck(before: GapState, seen: Observation): Plan {
	const state: GapState = { ...before, replays: [...before.replays], pending: [...before.pending], windows: [...(before.windows ?? [])] };
	const planning: Planning = { state, found: [], seen, replaysSince: state.replays };
	state.replays = [];
	if (seen.startedSinceKept) {
		// n8n started again from this state: the windows open now, and the one closing next, are cut by the start.
		state.windows = state.windows.map((window) => ({ ...window, cut: true }));
		if (state.previous) state.previous = { ...state.previous, beforeStart: true };
	}
	if (seen.repaired) return planRepaired(planning);
	if (state.hookId !== seen.hookId) startAnew(state);
	state.hookId = seen.hookId;
	if (state.first === undefined && !state.previous && !state.stopped && state.windows.length === 0 && state.pending.length === 0) {
		// The first check since activation: below the hook's first height there is nothing to replay.
		const start = firstCheckStart(seen);
		if (start !== undefined) state.first = start + 1;
	}
	if (seen.evaluatedHeight === null) {
		// Nothing evaluated yet: the next check starts from here.
		state.windows = [];
		return { state, found: planning.found };
	}
	const top = evaluatedTop(state, seen, planning.replaysSince);
	if (state.stopped) {
		const ended = planStopped(planning, top.height);
		if (ended) return ended;
	} else if (!top.sure && state.previous) {
		// The read was a replay's (or a block's evaluated again): which new heights the service had evaluated before it is
		// not known, so no window closes and none is judged now; the replays begun since count into the next.
		state.replays = planning.replaysSince;
		return { state, found: planning.found };
	}
	return !seen.taken ? planBlind(planning, top.height) : planWindows(planning, top.height, seen.taken);
}

/**
 * **The hook stopped and this check (or the activation before it) brought it back.** The service dropped what it had
 * queued and evaluated nothing meanwhile, so heights may be missing from the first that is not known to have arrived
 * whole up to where the service evaluates once it runs again: that end is known only at a later check
 * (`planStopped`), so the gap is kept open (`state.stopped`) and the next check asked for soon.
 */
function planRepaired(planning: Planning): Plan {
	const { state, seen, replaysSince } = planning;
	const { taken } = seen;
	const read = seen.evaluatedHeight;
	// Above every height the service had evaluated when it stopped: a block taken above it came after it was brought back
	// (activation enables a stopped hook before the first check, so its deliveries may already be in).
	const at = Math.max(state.previous?.height ?? 0, ...state.windows.map((window) => window.to), read === null ? deletedTop(seen) : evaluatedTop(state, seen, replaysSince).atMost, state.stopped?.at ?? 0);
	// The first height that may be missing: the lowest not known to have arrived whole (verifiedTo), or the highest block
	// taken before the stop (inclusive: the delivery the service gave up on may be one n8n took but whose workflow failed).
	// Never a block taken after it was brought back: that says nothing of where the gap began.
	const verified = verifiedTo(state, seen, replaysSince);
	// (Below the first stop on record: activation's, when it and this check each found the hook stopped; what came between
	// was taken while activation had it running.)
	const firstStop = seen.stopRecord?.byActivation ? Math.min(at, seen.stopRecord.height ?? at) : at;
	const takenBefore = taken || seen.kept ? highestTaken([...(taken ?? []), ...(seen.kept ?? [])], firstStop) : undefined;
	const unverified = verified?.height ?? (state.windows.length > 0 ? state.windows[0].after : (state.previous?.height ?? firstCheckStart(seen)));
	const candidates = [unverified === undefined ? undefined : atLeastZero(unverified + 1 - REORG_MARGIN), takenBefore, state.stopped?.from].filter(
		(value): value is number => value !== undefined,
	);
	// Replays not verified (their windows are dropped with this repair) may have been dropped too: the heights they did not
	// bring are replayed again (all of them, when what n8n took is not known). Not the heights between them and the stop.
	const replayed = verified?.replays ?? [...replaysSince, ...state.windows.flatMap((window) => window.replays)];
	for (const range of taken ? unanswered(taken, replayed) : replayed.map((replay): Range => [replay.from, replay.to])) state.pending = addRange(state.pending, range);
	// Nothing taken is known too when this process heard n8n's side since the hook's activation (not a restart with nothing
	// kept): starting from the hook's first block is then no guess, and said as an ordinary gap.
	const known =
		(taken !== undefined && !seen.lifeUnknown) ||
		state.windows.length > 0 ||
		state.previous !== undefined ||
		takenBefore !== undefined ||
		replayed.length > 0 ||
		(state.stopped !== undefined && !state.stopped.fromHookStart && !state.stopped.unknownStart);
	state.stopped = {
		...startUnknown(seen, state.stopped, candidates, known),
		at,
		// Counted from where it was brought back only when `at` bounds all it had evaluated: the same hook, read, after a check
		// that read it (not a hook registered anew, nor one stopped again before its gap was known).
		...(seen.resumedFrom && read !== null && state.previous && state.hookId === seen.hookId && !state.stopped && { resumedFrom: seen.resumedFrom }),
	};
	state.windows = [];
	state.previous = undefined;
	state.takenBefore = undefined;
	state.hookId = seen.hookId;
	return { state, found: planning.found, soon: true };
}

/** **Another hook** (activation replaced it): its counts start anew, and nothing judged of the one before holds for it. */
function startAnew(state: GapState): void {
	state.previous = undefined;
	state.windows = [];
	state.stopped = undefined;
	state.takenBefore = undefined;
	state.first = undefined;
	state.unheard = undefined;
}

/**
 * **A stopped hook brought back, its gap still open.** Until the service evaluates past where it stopped, the gap's end
 * is not known: the next check comes soon. Once it does, it evaluates new blocks in order of height and sends them in
 * order: the lowest block n8n took above where it stopped is at or above where it began again, so the gap ends below it.
 * What lies above is a window of its own, counted from where the hook was brought back (when those counts are known,
 * and the check goes on to judge it: undefined), and judged as any other; without them the gap reaches the height read.
 */
function planStopped(planning: Planning, height: number): Plan | undefined {
	const { state, seen, found } = planning;
	const { taken } = seen;
	const stopped = state.stopped!;
	if (height <= stopped.at) {
		state.takenBefore = taken && highestTaken(taken);
		return { state, found, soon: true };
	}
	const { from, at, fromHookStart, unknownStart, resumedFrom } = stopped;
	const resumed = resumedFrom && taken ? lowestTakenAbove(taken, at) : undefined;
	const end = resumed === undefined ? height : resumed - 1;
	add(planning, { kind: 'stopped', range: [from, end], ...(fromHookStart && { fromHookStart: true }), ...(unknownStart && { unknownStart }) });
	state.stopped = undefined;
	state.windows = [];
	if (resumed === undefined || !resumedFrom) {
		state.previous = readNow(seen, height);
		state.takenBefore = taken && highestTaken(taken);
		return { state, found };
	}
	state.previous = { ...resumedFrom, height: end, at: seen.now };
	return undefined;
}

/**
 * **n8n's side unknown** (the check is blind): nothing is judged on counts it cannot hold anything against, and what the
 * service matched since the check before is only reported; the next check starts from here. A stopped hook
 * (`planStopped`) needs no count.
 */
function planBlind({ state, seen, found }: Planning, height: number): Plan {
	const unjudged = state.previous ? Math.max(0, seen.occurrences - state.previous.occurrences) : 0;
	state.windows = [];
	state.previous = readNow(seen, height);
	state.takenBefore = undefined;
	return { state, found, ...(unjudged > 0 && { unjudged }) };
}

/**
 * **The ordinary check**: the hook delivers and n8n's side is heard. The windows left open are judged (`judgeWindows`),
 * the one that ends now is closed, and the notes that prove nothing are said (`sayDry`). Blocks evaluated beyond the new
 * heights and the check's own replays were evaluated again (a reorganisation, a Backfill by hand): the windows still open
 * count them, as they may have landed on their heights.
 */
function planWindows(planning: Planning, height: number, taken: TakenDelivery[]): Plan {
	const { state, seen, replaysSince } = planning;
	// The first check of a hook: its first window is its whole life so far, if that is short (a hook just registered).
	const start = seen.lifeUnknown ? undefined : firstCheckStart(seen);
	const previous = state.previous ?? (start === undefined ? undefined : { occurrences: 0, evaluated: 0, height: start, at: seen.now });
	// Evaluations beyond the new heights and the check's own replays: blocks evaluated again.
	const reevaluated = previous ? seen.evaluatedCount - previous.evaluated - (height - previous.height) - evaluatedBy(replaysSince) : 0;
	// Fewer evaluations counted than the check's replays asked for (a height the service had no block of): how many
	// blocks were evaluated again is unknown.
	const unknown = reevaluated < 0 && replaysSince.length > 0;
	// The notes hold no delivery at all, and no process heard took one since it started: notes that prove nothing (the
	// opening comment). Notes of deliveries kept from before a restart show the address reaches where they land.
	const unproven = seen.quietMs === undefined && taken.length === 0;
	if (!unproven && state.unheard) {
		// A delivery is heard: the notes hold what arrives, and what was kept apart is replayed, once.
		const [from, to] = state.unheard.range;
		add(planning, { kind: 'missing', range: state.unheard.range, matched: state.unheard.matched, arrived: takenIn(taken, { after: from - 1, to }) });
		state.unheard = undefined;
	}
	// An unknown count of blocks evaluated again is taken as some.
	const judged = judgeWindows(planning, taken, unknown ? 1 : Math.max(0, reevaluated), unproven);
	if (judged.dry !== undefined) sayDry(planning, judged, unproven);
	let soon = false;
	if (previous && seen.occurrences >= previous.occurrences) {
		const closing: Window = {
			after: previous.height,
			to: height,
			matched: seen.occurrences - previous.occurrences,
			replays: replaysSince,
			// Unknown: the reorganisation margin.
			reevaluated: unknown ? REORG_MARGIN : reevaluated,
			closedAt: seen.now,
			later: 0,
			...(previous.beforeStart && { cut: true as const }),
		};
		state.windows.push(closing);
		// (Not for notes that prove nothing, once said: an early check would hear nothing more.)
		soon = isShort(closing, taken) && !(unproven && state.unheard);
	} else state.windows = [];
	state.previous = readNow(seen, height);
	state.takenBefore = highestTaken(taken);
	return { state, found: planning.found, ...(soon && { soon }) };
}
