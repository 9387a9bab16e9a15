/**
 * The gap planner's state and its types, kept between checks, and the range helpers (gapPlan.ts explains the planner).
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
	/**
	 * Open when n8n started again from the state kept before (Observation, `startedSinceKept`): its deliveries may have
	 * come before that start, and their notes went with the process that took them. Short, it is replayed, never held as
	 * notes that prove nothing.
	 */
	cut?: true;
}

/** What the check keeps between checks (in the static data, through the trigger's webhook). */
export interface GapState {
	hookId?: string;
	/** The check before: the service's occurrence count, evaluated-block count and the highest height it had evaluated, and when it was read. */
	previous?: {
		occurrences: number;
		evaluated: number;
		height: number;
		at: number;
		/** Read before n8n started again from this state: the window from it is cut by that start (Window, `cut`). */
		beforeStart?: true;
	};
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

/** One distinct delivery n8n took, as ../channel/received.ts notes it. */
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

export interface Repeating {
	/** The first block of the delivery, and its direction. */
	height: number;
	hash: string;
	direction: 'apply' | 'rollback';
	/** How many times in a row it came. */
	times: number;
	since: number;
}

/** What n8n's processes took, as one record. */
export interface Received {
	taken: Taken[];
	/** The process that answered (its incarnation), when a process answered. */
	by?: string;
	/** The delivery that keeps coming back the most, if any does. */
	repeating?: Repeating;
	/** How long since the answering process took its last delivery (any, accepted), on its own clock; absent when it took none. */
	quietMs?: number;
}

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
	/** How long since n8n last took a delivery of the hook (../channel/received.ts); undefined when no process took one since it started. */
	quietMs?: number;
	/** Quiet this long, the stream is idle: it is not behind, whatever it still had to send has come or is lost. */
	idleMs: number;
	/**
	 * The first check of a process that started with nothing kept (n8n restarted, and no check had kept its state at the
	 * trigger's webhook): what reached n8n before it is not known, so the hook's life so far is not verified as a first
	 * window (which would take every earlier match for a missing one).
	 */
	lifeUnknown?: boolean;
	/**
	 * The first check of a process that started from the state a check kept at the trigger's webhook (n8n restarted): the
	 * notes of what arrived after that state was kept went with the process before, so the windows open then may be short
	 * of notes.
	 */
	startedSinceKept?: boolean;
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
