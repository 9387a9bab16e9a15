/**
 * What n8n took, as the gap planner reads it (gapPlan.ts): blocks taken, by whom, and what the check's replays brought.
 */
import { addRange, type Range, type Replay, type TakenDelivery, type Window } from './gapState';

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
