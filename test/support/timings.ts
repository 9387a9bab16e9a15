/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Where a test run's time goes: each install step (an n8n host's `npm ci`, its sqlite3 build,
 * Debian's packages) and each step of `npm test` is recorded as it ends, one JSON line in
 * `.build/timings.jsonl`, by whichever process did it; `npm test` (test/tools/test/run.ts) empties
 * the file when it starts and ends with the table, the jest suites' times added from jest's results.
 * `.ci/run` writes one line of this format itself (its `npm ci`, before any of this can run).
 */
import * as fs from 'fs';
import * as path from 'path';

import { REPO_DIR } from './paths';

export const TIMINGS_FILE = path.join(REPO_DIR, '.build', 'timings.jsonl');

export type TimingGroup = 'install' | 'step' | 'suite';

export interface Timing {
	group: TimingGroup;
	name: string;
	/** When it started (ms since the epoch). */
	start: number;
	seconds: number;
}

/** Records that `name` ran from `start` until `end` (ms since the epoch). Never throws: a timing is not worth a failed test. */
export function recordTiming(group: TimingGroup, name: string, start: number, end = Date.now()): void {
	const timing: Timing = { group, name, start, seconds: (end - start) / 1000 };
	try {
		fs.mkdirSync(path.dirname(TIMINGS_FILE), { recursive: true });
		fs.appendFileSync(TIMINGS_FILE, `${JSON.stringify(timing)}\n`);
	} catch {
		/* read-only checkout: the table is only information */
	}
}

export function readTimings(): Timing[] {
	let text = '';
	try {
		text = fs.readFileSync(TIMINGS_FILE, 'utf8');
	} catch {
		return [];
	}
	return text
		.split('\n')
		.filter(Boolean)
		.map((line) => JSON.parse(line) as Timing);
}

const GROUP_TITLES: Record<TimingGroup, string> = { install: 'install step', step: 'npm test step', suite: 'jest suite' };

/**
 * The timings as a Markdown table, in order of start: what ran, its kind, when it started (m:ss
 * after the first), how long it took; then the wall time from the first start to the last end.
 */
export function timingTable(timings: Timing[]): string {
	if (timings.length === 0) return '(no timings recorded)';
	const sorted = [...timings].sort((a, b) => a.start - b.start);
	const origin = sorted[0].start;
	const clock = (ms: number) => {
		const total = Math.round(ms / 1000);
		return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
	};
	const end = Math.max(...sorted.map((timing) => timing.start + timing.seconds * 1000));
	return [
		'| what | kind | started | seconds |',
		'|---|---|---:|---:|',
		...sorted.map((timing) => `| ${timing.name} | ${GROUP_TITLES[timing.group]} | ${clock(timing.start - origin)} | ${timing.seconds.toFixed(1)} |`),
		`| **all of it, first start to last end** | | | **${((end - origin) / 1000).toFixed(0)}** (${clock(end - origin)}) |`,
	].join('\n');
}
