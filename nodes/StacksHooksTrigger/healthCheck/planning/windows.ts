/**
 * What the gap planner (gapPlan.ts) works with: ranges of heights, what n8n took in them, and the windows
 * between checks judged against both. What the rules rest on is in docs/nothing-missed.md.
 *
 * One file, so that a plan reads on from one place: each check calls these many times, in turn with its
 * own steps.
 */
import { DRY_CHECKS, type Finding, type GapState, type Observation, type Range, type Replay, type TakenDelivery, type Window } from './gapState';

/* Ranges of heights ------------------------------------------------------------------------------- */

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

export const atLeastZero = (height: number) => Math.max(0, height);

/* What n8n took ----------------------------------------------------------------------------------- */

const isReplayed = (delivery: TakenDelivery) => (delivery.p?.length ?? 0) > 0;

/** The highest height of a block n8n took other than by the check's replays, at or below `upTo`. */
export function highestTaken(taken: TakenDelivery[], upTo = Number.POSITIVE_INFINITY): number | undefined {
	let highest: number | undefined;
	for (const delivery of taken) if (!isReplayed(delivery)) for (const [height] of delivery.a) if (height <= upTo) highest = Math.max(highest ?? height, height);
	return highest;
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
export const topTaken = (taken: TakenDelivery[]) => Math.max(Number.NEGATIVE_INFINITY, ...taken.flatMap((delivery) => delivery.a.map(([height]) => height)));

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
export function undoneBlocks(taken: TakenDelivery[], replays: Replay[], complete: boolean): Array<[number, string]> {
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
export function unanswered(taken: TakenDelivery[], replays: Replay[]): Range[] {
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

/** Whether fewer blocks than the window matched have reached n8n so far. */
export function isShort(window: Window, taken: TakenDelivery[]): boolean {
	return takenIn(taken, window) < window.matched - replayMatches(taken, window.replays);
}

/** The lowest height of a block n8n took above `height`, other than by the check's replays. */
export function lowestTakenAbove(taken: TakenDelivery[], height: number): number | undefined {
	let lowest: number | undefined;
	for (const delivery of taken) if (!isReplayed(delivery)) for (const [at] of delivery.a) if (at > height) lowest = Math.min(lowest ?? at, at);
	return lowest;
}

/* The windows between checks ---------------------------------------------------------------------- */

/** What each case of a check works on: the state as it goes on, what it found, what the service and n8n showed. */
export interface Planning {
	state: GapState;
	found: Finding[];
	seen: Observation;
	/** Replays begun since the check before read the service, kept apart: their matches fall in the window that ends now. */
	replaysSince: Replay[];
}

/** A range that may be missing: said, and its heights (none below the hook's first) left to replay. */
export function add({ state, found }: Planning, finding: Exclude<Finding, { kind: 'dry' | 'undone' }>): void {
	const range: Range = [Math.max(finding.range[0], state.first ?? 0), finding.range[1]];
	if (range[1] < range[0]) return;
	found.push({ ...finding, range });
	state.pending = addRange(state.pending, range);
}

export const evaluatedBy = (replays: Replay[]) => replays.reduce((sum, replay) => sum + replay.evaluated, 0);

/**
 * The highest height the service had evaluated when it was read, as far as known: it reports the height of its last
 * evaluation, a replayed one too, so the highest read so far, or of a block n8n had taken by the check before (so
 * evaluated before this read). `sure` when the read itself is that height: a read below it was a replay (or a block
 * evaluated again), and new heights may have been evaluated before it, at most one for each evaluation since the check
 * before that was not one of the check's replays (`atMost`).
 */
export function evaluatedTop(state: GapState, seen: Observation, replaysSince: Replay[]): { height: number; sure: boolean; atMost: number } {
	const read = seen.evaluatedHeight ?? 0;
	const height = Math.max(read, state.previous?.height ?? read, state.takenBefore ?? read);
	const sure = read >= height;
	const atMost = sure || !state.previous ? height : Math.max(height, state.previous.height + Math.max(0, seen.evaluatedCount - state.previous.evaluated - evaluatedBy(replaysSince)));
	return { height, sure, atMost };
}

/**
 * At a repair: up to where what the service matched is known to have reached n8n, from the windows in order and then the
 * interval since the check before, each while its count adds up (blocks evaluated again since it closed make it prove
 * nothing); with the replays of what is not verified. Undefined when nothing can be verified.
 */
export function verifiedTo(state: GapState, seen: Observation, replaysSince: Replay[]): { height: number; replays: Replay[] } | undefined {
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

/** Windows held this check (notes that prove nothing), with the heights and the matches each was judged short on. */
export type Held = Array<{ window: Window; range: Range; matched: number }>;

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
export function judgeWindows(planning: Planning, taken: TakenDelivery[], later: number, unproven: boolean): { held: Held; dry?: boolean; matched: number } {
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
		// (A window cut by a start may be short of notes only: the notes prove nothing of it either way.)
		if (arrived < matched && unproven && !window.cut) {
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
			if (!window.cut) {
				dry = (dry ?? true) && arrived === 0 && replayed === 0;
				dryMatched += matched;
			}
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
export function sayDry({ state, seen, found }: Planning, judged: { held: Held; dry?: boolean; matched: number }, unproven: boolean): void {
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
