/**
 * Which heights the workflow may have missed, decided at each check from what the service says it
 * matched (the hook's `occurrence_count`, counted when a block matches) and what n8n's processes took
 * (received.ts). Pure: no request, no clock; the check (../plan.ts) gathers the inputs, keeps the
 * state and replays what this plans.
 *
 * Two ways heights go missing, and how each is found:
 * - **The hook stopped** (interrupted after failed deliveries, disabled, expired, deleted) and the check
 *   brought it back: the service dropped what it had queued and evaluated nothing meanwhile. Missing:
 *   from the last height known to be complete (or the highest block taken, if lower) up to where the
 *   service evaluates once it runs again, known at the first check that sees it evaluate past where it
 *   stopped.
 * - **A match that never arrived** (a delivery given up or dropped without a word, a hook that matches
 *   but delivers nothing): each interval between two checks is a *window*: the heights the service
 *   evaluated in it, and the matches it counted. Once every delivery of the window must have come (the
 *   service sends a hook's deliveries one after another, so once n8n took one evaluated after the
 *   window, or the stream has gone idle: a stream behind n8n's pace, however far, is not taken for a
 *   lost one, as replays would only lengthen it), the blocks n8n took at those heights (one per block
 *   applied by each distinct delivery: a delivery sent again is the same delivery) are held against
 *   those matches, less the matches of the check's own replays in the window. Fewer taken than
 *   matched: the window's heights are replayed, once, from as low as its own reorganisations reached.
 *   A window short of blocks when it closes makes the plan ask for the next check soon (`soon`).
 * - **A count that proves nothing**: blocks evaluated again after the window closed (a reorganisation,
 *   a Backfill by hand) may have landed on its heights and made up for a block that never came. Such a
 *   window, if it had matches, is replayed too. Blocks evaluated again inside the window itself only
 *   make its count short (they sit below it, or were counted in it twice), never long.
 * - **Notes that prove nothing**: while the notes hold no delivery of the hook and no process heard has
 *   taken one since it started (no quiet time), they cannot tell a block lost from one taken by a process
 *   the check does not hear (queue mode with the Internal Webhook Address set to the main, which takes no
 *   deliveries). A window short then is held, not replayed, and judged once a delivery is heard; at
 *   DRY_CHECKS checks in a row of such windows the plan says so once (`dry` with `unheard`) and keeps
 *   their heights apart (`state.unheard`), with every short window after them, replayed once a delivery
 *   is heard and never before: a view that cannot be right drives no replay.
 *
 * What n8n took is asked for before the service is read (../hear.ts), so every block counted was
 * evaluated before that read: a window's count can only be made long by what the service evaluated
 * again between its closing read and the read that verifies it.
 *
 * Over-replaying is harmless to a workflow that keys on the items' ids (README, Recipes); missing a
 * height is not, so every uncertain case replays: a reorganisation across a window's lower edge, a
 * Backfill run by hand. Each window is replayed at most
 * once, so none of these repeats. What the plan assumes of the service: an occurrence is counted per
 * matched block applied (a reorganisation's and an evaluation's too), every block it evaluates counts
 * in `evaluated_block_count` (when the replays' evaluations come up short, the count of blocks
 * evaluated again is taken as unknown: doubt), it evaluates the chain's new blocks in order of height,
 * and it sends a hook's deliveries in order (if it did not, a window could be verified early: replayed
 * for nothing). A block a replay brings is told from a late or re-sent live delivery of the same block
 * by nothing in the payload; one a reorganisation undid (its rollback taken) is not counted for a replay.
 */

/** Heights a reorganisation may have undone below the last height known complete, when a stopped hook is replayed from there. */
export const REORG_MARGIN = 10;
/** A hook seen for the first time with at most this many blocks evaluated is verified from its first block. */
export const FIRST_WINDOW_MAX = 1_000;
/** Checks in a row that verified matched blocks of which nothing arrived, and between which n8n took nothing of the hook at all: it is reported as not delivering. */
export const DRY_CHECKS = 3;

/** [from, to], both included, from ≤ to. */
export type Range = [number, number];

/** Heights the check replayed; `at` (when the replay began, the check's clock) also names it. */
export interface Replay {
	from: number;
	to: number;
	at: number;
	/** Heights the service was asked to evaluate (all, unless the replay stopped on an error). */
	evaluated: number;
}

/** The interval between two checks, verified once its deliveries must have come. */
export interface Window {
	/** Heights above `after` up to `to` were first evaluated in it. */
	after: number;
	to: number;
	/** Matches the service counted in it. */
	matched: number;
	/** The check's replays whose matches were counted in it. */
	replays: Replay[];
	/** Blocks the service evaluated in it beyond the new heights and the check's replays (a reorganisation, or a Backfill run by hand): as low as `after + 1 - reevaluated`. */
	reevaluated: number;
	/** When it closed (the check's clock). */
	closedAt: number;
	/** Since it closed: blocks evaluated again (they may land on its heights). */
	later: number;
}

/** What the check keeps between checks (in the static data, through the trigger's webhook). */
export interface GapState {
	hookId?: string;
	/** The check before: the service's occurrence count, evaluated-block count and the highest height it had evaluated, and when it was read. */
	previous?: { occurrences: number; evaluated: number; height: number; at: number };
	/** Windows not verified yet, oldest first. */
	windows: Window[];
	/** Replays begun since the check before read the service (their matches fall in the next window). */
	replays: Replay[];
	/**
	 * The hook stopped and was brought back: heights from `from` on may be missing, up to where the service evaluates
	 * past `at`; `fromHookStart` when `from` is the hook's first block for want of anything known. `resumedFrom`: the
	 * counts of the hook that delivers now, as they stood when it was brought back, when known (Observation).
	 */
	stopped?: { from: number; at: number; fromHookStart?: true; unknownStart?: UnknownStart; resumedFrom?: Counts };
	/** Heights to replay, ascending, not overlapping. */
	pending: Range[];
	/** Checks in a row that verified matched blocks of which nothing arrived, with nothing taken between them (DRY_CHECKS). */
	dry?: number;
	/** The highest height of a block n8n had taken at the check before (evaluated before this check's read). */
	takenBefore?: number;
	/** The first height the trigger's hook evaluated, when known: nothing below it is replayed. */
	first?: number;
	/**
	 * Heights of windows short of blocks while the notes held no delivery (planCheck, `unproven`), kept apart once
	 * DRY_CHECKS checks in a row found them so (the notes prove nothing: planCheck), with the matches counted in them:
	 * replayed once a delivery is heard.
	 */
	unheard?: { range: Range; matched: number };
	/** What the alerts keep (incidents.ts), carried along. */
	alerts?: unknown;
}

/** One distinct delivery n8n took, as received.ts notes it. */
export interface Taken {
	/** Identifies the delivery: the hook and the blocks it rolled back and applied. */
	k: string;
	/** The blocks it applied: [height, first 16 hex digits of the hash]. */
	a: Array<[number, string]>;
	/** The blocks it rolled back, likewise. */
	b?: Array<[number, string]>;
	/** The check's replays (their `at`) of its block's height listed when it came: what came while the check replayed that height. */
	p?: number[];
}

/** A delivery as the plan reads it: its blocks and the replays it came under, not its key. */
export type TakenDelivery = Omit<Taken, 'k'>;

/**
 * Where a stopped hook's gap began could not be told (nothing kept of what reached n8n, and the hook too old to replay
 * from its first block): the service's record it was taken from, the height it had evaluated and its last match then.
 */
export interface UnknownStart {
	stoppedAt: number;
	lastMatch?: number;
}

/** A hook's counts at the service: matches (`occurrence_count`) and evaluations (`evaluated_block_count`). */
export interface Counts {
	occurrences: number;
	evaluated: number;
}

export interface Observation {
	/** When the service was read (the check's clock). */
	now: number;
	hookId: string;
	/** This check found the hook stopped and brought it back (enabled it, or registered it again). */
	repaired: boolean;
	/**
	 * With `repaired`: the counts of the hook that delivers now, as they stood when it was brought back (the hook as read,
	 * when it was enabled again; zero, when it was registered anew); undefined when not known (a hook taken over).
	 */
	resumedFrom?: Counts;
	/**
	 * With `repaired`: the service's record of where the hook stopped delivering (its status as read before it was brought
	 * back, the first stop's when activation and the check each found one): the height it had evaluated and the height
	 * of its last match. Absent for a hook found deleted.
	 */
	stopRecord?: { height: number | null; lastMatch: number | null; byActivation?: true };
	/** The status as read, before any repair (a deleted hook: null and 0). */
	evaluatedHeight: number | null;
	evaluatedCount: number;
	occurrences: number;
	/** What n8n's processes took; undefined when it cannot be known. */
	taken?: TakenDelivery[];
	/**
	 * What they had taken as the static data kept it when this process loaded the workflow (its start): only where a
	 * stopped hook's gap began is taken from it (what was taken before the stop), never a window's count.
	 */
	kept?: TakenDelivery[];
	/** How long since n8n last took a delivery of the hook (received.ts); undefined when no process took one since it started. */
	quietMs?: number;
	/** Quiet this long, the stream is idle: it is not behind, whatever it still had to send has come or is lost. */
	idleMs: number;
	/**
	 * The first check of a process that started with nothing kept (n8n restarted, and no check had kept its state at the
	 * trigger's webhook): what reached n8n before it is not known, so the hook's life so far is not verified as a first
	 * window (which would take every earlier match for a missing one).
	 */
	lifeUnknown?: boolean;
}

export type Finding =
	/** `fromHookStart`: nothing was known of what arrived before the hook stopped, so the range starts at its first block. */
	| { kind: 'stopped'; range: Range; fromHookStart?: true; unknownStart?: UnknownStart }
	| { kind: 'missing'; range: Range; matched: number; arrived: number }
	/** A window with matches in which, or in the one after, the service evaluated blocks again (a reorganisation, a Backfill by hand): its count cannot be trusted, so it is replayed. */
	| { kind: 'reevaluated'; range: Range; matched: number }
	/**
	 * DRY_CHECKS checks in a row verified matched blocks and nothing of the hook arrived, replays included: it evaluates but
	 * does not deliver. `unheard`: no process heard had taken a delivery since it started either, so the notes may be of
	 * processes that take none (the check's address reaches the wrong one): nothing was replayed, the heights are these.
	 */
	| { kind: 'dry'; checks: number; matched: number; unheard?: Range }
	/**
	 * Blocks n8n took that a replay of their height no longer brings, and whose rollback n8n never took: undone by a
	 * reorganisation while the service was not delivering (it drops what it had queued, the rollback included), and a
	 * rollback is not something the service replays. [height, hash prefix] each.
	 */
	| { kind: 'undone'; blocks: Array<[number, string]> };

export interface Plan {
	state: GapState;
	found: Finding[];
	/**
	 * The next check had better come soon: the window that just closed is short of blocks so far (a delivery on its way,
	 * or one lost), or a stopped hook was brought back and where its gap ends is known once the service evaluates again.
	 */
	soon?: boolean;
	/** Matches the service counted since the check before that could not be judged: what n8n took is not known (`taken` undefined). */
	unjudged?: number;
}

/** Whether a value kept in the static data is a gap state. */
export function isGapState(value: unknown): value is GapState {
	const state = value as Partial<Record<keyof GapState, unknown>> | null;
	return typeof state === 'object' && state !== null && !Array.isArray(state) && Array.isArray(state.pending) && Array.isArray(state.replays) && Array.isArray(state.windows);
}

export function emptyState(): GapState {
	return { replays: [], pending: [], windows: [] };
}

/** The lowest height the plan still reads deliveries at: what n8n's processes may forget below it. */
export function floorOf(state: GapState): number {
	const heights = [
		state.previous?.height,
		...state.replays.map((replay) => replay.from),
		...state.windows.flatMap((window) => [window.after - Math.max(0, window.reevaluated), ...window.replays.map((replay) => replay.from)]),
	];
	const known = heights.filter((height): height is number => height !== undefined);
	return known.length > 0 ? Math.min(...known) - REORG_MARGIN : -1;
}

/** Adds [from, to] to ascending, non-overlapping ranges, merging what touches. */
export function addRange(ranges: Range[], [from, to]: Range): Range[] {
	if (to < from) return ranges;
	const merged: Range[] = [];
	let current: Range = [from, to];
	for (const range of [...ranges].sort((a, b) => a[0] - b[0])) {
		if (range[1] + 1 < current[0]) merged.push(range);
		else if (current[1] + 1 < range[0]) {
			merged.push(current);
			current = range;
		} else current = [Math.min(current[0], range[0]), Math.max(current[1], range[1])];
	}
	merged.push(current);
	return merged;
}

export function rangeSize(ranges: Range[]): number {
	return ranges.reduce((sum, [from, to]) => sum + to - from + 1, 0);
}

/** Takes up to `limit` heights from the front of the ranges: what to replay now, and what is left. */
export function takeHeights(pending: Range[], limit: number): { now: Range[]; left: Range[] } {
	const now: Range[] = [];
	const left: Range[] = [];
	let budget = limit;
	for (const [from, to] of pending) {
		if (budget <= 0) left.push([from, to]);
		else if (to - from + 1 <= budget) {
			now.push([from, to]);
			budget -= to - from + 1;
		} else {
			now.push([from, from + budget - 1]);
			left.push([from + budget, to]);
			budget = 0;
		}
	}
	return { now, left };
}

const atLeastZero = (height: number) => Math.max(0, height);
const isReplayed = (delivery: TakenDelivery) => (delivery.p?.length ?? 0) > 0;

/** The highest height of a block n8n took other than by the check's replays, at or below `upTo`. */
export function highestTaken(taken: TakenDelivery[], upTo = Number.POSITIVE_INFINITY): number | undefined {
	let highest: number | undefined;
	for (const delivery of taken) if (!isReplayed(delivery)) for (const [height] of delivery.a) if (height <= upTo) highest = Math.max(highest ?? height, height);
	return highest;
}

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

/**
 * Blocks n8n took at the window's heights: one per block applied by each distinct delivery, the check's replays left
 * out but for those begun after the window closed (`closedAt`). A delivery is marked with every replay of its height
 * listed when it came: one of the window's own blocks, late behind a slow stream, is marked so when a later replay
 * covers its height; and if that replay brought it instead, the block has reached n8n all the same.
 */
export function takenIn(taken: TakenDelivery[], window: Pick<Window, 'after' | 'to'> & { closedAt?: number }): number {
	const closedAt = window.closedAt ?? Number.POSITIVE_INFINITY;
	let count = 0;
	for (const delivery of taken) {
		if (delivery.p?.some((at) => at <= closedAt)) continue;
		for (const [height] of delivery.a) if (height > window.after && height <= window.to) count++;
	}
	return count;
}

/** The highest height of a block n8n took, a replayed one too: every delivery above a window was evaluated after it closed. */
const topTaken = (taken: TakenDelivery[]) => Math.max(Number.NEGATIVE_INFINITY, ...taken.flatMap((delivery) => delivery.a.map(([height]) => height)));

/**
 * Of the replays, how many heights brought a block (the service counted each as a match). A block a reorganisation
 * undid (rolled back, and not applied again by a later one) is not on the chain a replay evaluates: if it came while
 * a replay of its height ran, it was the service sending an older delivery again, and it is not counted for the replay.
 */
export function replayMatches(taken: TakenDelivery[], replays: Replay[]): number {
	const undone = new Set(taken.flatMap((delivery) => (delivery.b ?? []).map(([height, hash]) => `${height}:${hash}`)));
	const reapplied = new Set(taken.filter((delivery) => (delivery.b?.length ?? 0) > 0).flatMap((delivery) => delivery.a.map(([height, hash]) => `${height}:${hash}`)));
	const onChain = ([height, hash]: [number, string]) => !undone.has(`${height}:${hash}`) || reapplied.has(`${height}:${hash}`);
	let total = 0;
	for (const replay of replays) {
		const heights = new Set<number>();
		for (const delivery of taken) {
			if (delivery.p?.includes(replay.at)) for (const block of delivery.a) if (block[0] >= replay.from && block[0] <= replay.to && onChain(block)) heights.add(block[0]);
		}
		total += heights.size;
	}
	return total;
}

/**
 * Blocks taken (not by a replay) at the replays' heights that the replays did not bring again and that no delivery
 * rolled back. Where a replay brought another block at the height, the one taken is certainly off the chain; where it
 * brought nothing, only when every replay answered in full (`complete`: the window's count adds up).
 */
function undoneBlocks(taken: TakenDelivery[], replays: Replay[], complete: boolean): Array<[number, string]> {
	if (replays.length === 0) return [];
	const rolledBack = new Set(taken.flatMap((delivery) => (delivery.b ?? []).map(([height, hash]) => `${height}:${hash}`)));
	const undone = new Map<string, [number, string]>();
	for (const replay of replays) {
		const broughtBlocks = taken.filter((delivery) => delivery.p?.includes(replay.at)).flatMap((delivery) => delivery.a);
		const brought = new Set(broughtBlocks.map(([height, hash]) => `${height}:${hash}`));
		const replaced = new Set(broughtBlocks.filter(([height, hash]) => !rolledBack.has(`${height}:${hash}`)).map(([height]) => height));
		for (const delivery of taken) {
			if (isReplayed(delivery)) continue;
			for (const [height, hash] of delivery.a) {
				const key = `${height}:${hash}`;
				if (height >= replay.from && height <= replay.to && !brought.has(key) && !rolledBack.has(key) && (complete || replaced.has(height))) undone.set(key, [height, hash]);
			}
		}
	}
	return [...undone.values()].sort((a, b) => a[0] - b[0]);
}

/** The replayed heights that brought nothing: unmatched, or dropped again. */
function unanswered(taken: TakenDelivery[], replays: Replay[]): Range[] {
	let ranges: Range[] = [];
	for (const replay of replays) {
		const answered = new Set<number>();
		for (const delivery of taken) if (delivery.p?.includes(replay.at)) for (const [height] of delivery.a) answered.add(height);
		let start: number | undefined;
		for (let height = replay.from; height <= replay.to + 1; height++) {
			const open = height <= replay.to && !answered.has(height);
			if (open && start === undefined) start = height;
			if (!open && start !== undefined) {
				ranges = addRange(ranges, [start, height - 1]);
				start = undefined;
			}
		}
	}
	return ranges;
}

/** Below the first height a hook evaluated, when it has evaluated few enough to be verified from there (FIRST_WINDOW_MAX). */
function firstCheckStart(seen: Observation): number | undefined {
	if (seen.evaluatedHeight === null || seen.evaluatedCount > FIRST_WINDOW_MAX) return undefined;
	return atLeastZero(seen.evaluatedHeight - seen.evaluatedCount);
}

/** Whether fewer blocks than the window matched have reached n8n so far. */
export function isShort(window: Window, taken: TakenDelivery[]): boolean {
	return takenIn(taken, window) < window.matched - replayMatches(taken, window.replays);
}

const evaluatedBy = (replays: Replay[]) => replays.reduce((sum, replay) => sum + replay.evaluated, 0);

/**
 * The highest height the service had evaluated when it was read, as far as known: it reports the height of its last
 * evaluation, a replayed one too, so the highest read so far, or of a block n8n had taken by the check before (so
 * evaluated before this read). `sure` when the read itself is that height: a read below it was a replay (or a block
 * evaluated again), and new heights may have been evaluated before it, at most one for each evaluation since the check
 * before that was not one of the check's replays (`atMost`).
 */
function evaluatedTop(state: GapState, seen: Observation, replaysSince: Replay[]): { height: number; sure: boolean; atMost: number } {
	const read = seen.evaluatedHeight ?? 0;
	const height = Math.max(read, state.previous?.height ?? read, state.takenBefore ?? read);
	const sure = read >= height;
	const atMost = sure || !state.previous ? height : Math.max(height, state.previous.height + Math.max(0, seen.evaluatedCount - state.previous.evaluated - evaluatedBy(replaysSince)));
	return { height, sure, atMost };
}

/** The lowest height of a block n8n took above `height`, other than by the check's replays. */
function lowestTakenAbove(taken: TakenDelivery[], height: number): number | undefined {
	let lowest: number | undefined;
	for (const delivery of taken) if (!isReplayed(delivery)) for (const [at] of delivery.a) if (at > height) lowest = Math.min(lowest ?? at, at);
	return lowest;
}

/**
 * At a repair: up to where what the service matched is known to have reached n8n, from the windows in order and then the
 * interval since the check before, each while its count adds up (blocks evaluated again since it closed make it prove
 * nothing); with the replays of what is not verified. Undefined when nothing can be verified.
 */
function verifiedTo(state: GapState, seen: Observation, replaysSince: Replay[]): { height: number; replays: Replay[] } | undefined {
	const { taken } = seen;
	const start = state.windows[0]?.after ?? state.previous?.height;
	if (!taken || start === undefined) return undefined;
	const complete = (window: Pick<Window, 'after' | 'to' | 'matched' | 'replays'>) => takenIn(taken, window) >= window.matched - replayMatches(taken, window.replays);
	// The interval since the check before, when the same hook was read: evaluated beyond its new heights and the replays,
	// it counts blocks evaluated again, which may have landed on the windows' heights.
	const previous = state.previous;
	const top = evaluatedTop(state, seen, replaysSince);
	const since =
		previous && top.sure && seen.evaluatedHeight !== null && state.hookId === seen.hookId && seen.occurrences >= previous.occurrences
			? (() => {
					const to = top.height;
					const again = seen.evaluatedCount - previous.evaluated - (to - previous.height) - evaluatedBy(replaysSince);
					return { after: previous.height, to, matched: seen.occurrences - previous.occurrences, replays: replaysSince, again };
				})()
			: undefined;
	let height = start;
	for (const [i, window] of state.windows.entries()) {
		const doubt = window.matched > 0 && (window.later > 0 || (since?.again ?? 0) !== 0);
		if (doubt || !complete(window)) return { height, replays: [...state.windows.slice(i).flatMap((w) => w.replays), ...replaysSince] };
		height = window.to;
	}
	if (since && complete(since)) return { height: since.to, replays: [] };
	return { height, replays: replaysSince };
}

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

/** What each case of a check works on: the state as it goes on, what it found, what the service and n8n showed. */
interface Planning {
	state: GapState;
	found: Finding[];
	seen: Observation;
	/** Replays begun since the check before read the service, kept apart: their matches fall in the window that ends now. */
	replaysSince: Replay[];
}

/** A range that may be missing: said, and its heights (none below the hook's first) left to replay. */
function add({ state, found }: Planning, finding: Exclude<Finding, { kind: 'dry' | 'undone' }>): void {
	const range: Range = [Math.max(finding.range[0], state.first ?? 0), finding.range[1]];
	if (range[1] < range[0]) return;
	found.push({ ...finding, range });
	state.pending = addRange(state.pending, range);
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
	return seen.taken ? planWindows(planning, top.height, seen.taken) : planBlind(planning, top.height);
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
		};
		state.windows.push(closing);
		// (Not for notes that prove nothing, once said: an early check would hear nothing more.)
		soon = isShort(closing, taken) && !(unproven && state.unheard);
	} else state.windows = [];
	state.previous = readNow(seen, height);
	state.takenBefore = highestTaken(taken);
	return { state, found: planning.found, ...(soon && { soon }) };
}

/** Windows held this check (notes that prove nothing), with the heights and the matches each was judged short on. */
type Held = Array<{ window: Window; range: Range; matched: number }>;

/**
 * Each window left open, judged once its deliveries must have come. The service sends a hook's deliveries one after
 * another: the window's have all come (or are lost) once n8n took one evaluated after it closed, or once the stream went
 * idle. (A block above the window was evaluated after it: new heights come in order, and the replays it counted were all
 * of heights below its top. A mark of a later replay proves nothing: one of the window's own blocks, late behind a slow
 * stream, has it too.) However far behind the stream runs, a window is not judged before: replaying what is on its way
 * would only put more in it, behind the rest. Fewer blocks taken than matched: missing, replayed from as low as the
 * window's own reorganisations reached; a count that adds up while blocks were evaluated again since it closed proves
 * nothing: replayed too. With notes that prove nothing, a short window is held, not replayed.
 * `dry`: whether the windows judged say the hook delivers nothing (false once one got some of what it matched; undefined
 * while none with matches was judged by the stream).
 */
function judgeWindows(planning: Planning, taken: TakenDelivery[], later: number, unproven: boolean): { held: Held; dry?: boolean; matched: number } {
	const { state, seen, found } = planning;
	const idle = (seen.quietMs ?? Number.POSITIVE_INFINITY) >= seen.idleMs;
	const takenTop = topTaken(taken);
	const open = state.windows;
	state.windows = [];
	const held: Held = [];
	let dry: boolean | undefined;
	let dryMatched = 0;
	for (const waiting of open) {
		const window: Window = { ...waiting, later: waiting.later + later };
		if (takenTop <= window.to && !idle) {
			state.windows.push(window);
			continue;
		}
		const replayed = replayMatches(taken, window.replays);
		const matched = window.matched - replayed;
		const arrived = takenIn(taken, window);
		// From as low as the window's own reorganisations reached.
		const range: Range = [atLeastZero(window.after + 1 - Math.max(0, window.reevaluated)), window.to];
		// A block n8n had taken at a replayed height and that the replay no longer brings was undone, and if its rollback
		// never came, no replay will bring it.
		const undone = undoneBlocks(taken, window.replays, arrived >= matched);
		if (undone.length > 0) found.push({ kind: 'undone', blocks: undone });
		if (arrived < matched && unproven) {
			// Held: judged once a delivery is heard (kept apart with the others once DRY_CHECKS checks found them so).
			if (state.unheard) state.unheard = { range: [Math.min(state.unheard.range[0], range[0]), Math.max(state.unheard.range[1], range[1])], matched: state.unheard.matched + matched };
			else {
				state.windows.push(window);
				held.push({ window, range, matched });
			}
			dry = (dry ?? true) && arrived === 0 && replayed === 0;
			dryMatched += matched;
		} else if (arrived < matched) {
			add(planning, { kind: 'missing', range, matched, arrived });
			// A replayed delivery can be dropped too: the replayed heights that brought nothing are replayed again.
			for (const again of unanswered(taken, window.replays)) state.pending = addRange(state.pending, again);
			dry = (dry ?? true) && arrived === 0 && replayed === 0;
			dryMatched += matched;
		} else {
			if (matched > 0) dry = false;
			// Blocks evaluated again since the window closed may have landed on its heights: a count that adds up proves
			// nothing then. (Reorganisations are rare on Stacks; this is most of what a reorganisation costs.)
			if (matched > 0 && window.later > 0) {
				add(planning, { kind: 'reevaluated', range, matched });
				// A replacement could also hide a dropped replay: those heights again too.
				for (const again of unanswered(taken, window.replays)) state.pending = addRange(state.pending, again);
			}
		}
	}
	return { held, ...(dry !== undefined && { dry }), matched: dryMatched };
}

/**
 * **A hook that delivers nothing, or notes that prove nothing.** Counted once a check, and only while n8n took nothing of
 * the hook since the check before: a stream that delivers, however late (n8n under load), is not one that delivers
 * nothing. At DRY_CHECKS checks in a row it is said once. With notes that prove nothing it is said at DRY_CHECKS checks
 * and as many matched blocks at least (one block dropped is not notes that prove nothing): the held windows are kept
 * apart (`state.unheard`), with every short window after them while no delivery is heard.
 */
function sayDry({ state, seen, found }: Planning, judged: { held: Held; dry?: boolean; matched: number }, unproven: boolean): void {
	const silent = seen.quietMs === undefined || (state.previous !== undefined && seen.now - seen.quietMs <= state.previous.at);
	state.dry = judged.dry && silent ? (state.dry ?? 0) + 1 : 0;
	if (!unproven) {
		if (state.dry === DRY_CHECKS) found.push({ kind: 'dry', checks: DRY_CHECKS, matched: judged.matched });
		return;
	}
	const { held } = judged;
	const unheardMatched = held.reduce((sum, entry) => sum + entry.matched, 0);
	if (state.dry >= DRY_CHECKS && unheardMatched >= DRY_CHECKS) {
		const range: Range = [Math.min(...held.map((entry) => entry.range[0])), Math.max(...held.map((entry) => entry.range[1]))];
		state.unheard = { range, matched: unheardMatched };
		state.windows = state.windows.filter((window) => !held.some((entry) => entry.window === window));
		found.push({ kind: 'dry', checks: state.dry, matched: judged.matched, unheard: range });
	}
}
