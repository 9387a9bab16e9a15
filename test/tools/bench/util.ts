/**
 * Statistics, formatting and the result row shared by the benchmark's parts. Written by hand:
 * Node's only statistics (perf_hooks' histogram) keeps integers in 3-significant-digit buckets
 * and gives no mean of the middle pair, and Intl's unit formatting does not pick the unit.
 */

export function median(values: number[]): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100): the smallest value with at least p % of the values at or below it. */
export function percentile(values: number[], p: number): number {
	if (values.length === 0) return NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

/** A duration given in ms, in the unit that reads best. */
export function fmtMs(ms: number): string {
	if (!Number.isFinite(ms)) return String(ms);
	if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 1)} µs`;
	if (ms < 10) return `${ms.toFixed(2)} ms`;
	return ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function fmtBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(2)} MB`;
}

export const fmtRatio = (ratio: number): string => (Number.isFinite(ratio) ? `${ratio.toFixed(ratio >= 10 ? 1 : 2)}×` : '–');

/** MISS: a figure off its target (the run still passes); FAIL: a correctness check failed (exit 1). */
export type Verdict = 'PASS' | 'MISS' | 'FAIL' | 'info';

export const verdict = (pass: boolean): Verdict => (pass ? 'PASS' : 'MISS');

/** One line of the table: a figure beside its reference measured in the same run. */
export interface Row {
	id: string;
	what: string;
	figure: string;
	reference: string;
	/** figure / reference; NaN when the row has no ratio. */
	ratio: number;
	target: string;
	verdict: Verdict;
	/** Raw numbers and how they were obtained. */
	raw: string;
}
