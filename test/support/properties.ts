/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Seeds for fast-check properties: random by default, `FC_SEED=<n>` replays a run. fast-check
 * prints the seed and the failing path of any failure; `FC_RUNS_FACTOR` scales every run count
 * (e.g. 20 for a long run: `FC_RUNS_FACTOR=20 npx jest -c test/jest.config.js <file>`).
 */
import type { Parameters } from 'fast-check';

const seedFromEnv = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);
const factor = process.env.FC_RUNS_FACTOR === undefined ? 1 : Number(process.env.FC_RUNS_FACTOR);

/** The seed of this jest process's properties (printed with the property's figures, and by fast-check on failure). */
export const SEED = Number.isSafeInteger(seedFromEnv) ? (seedFromEnv as number) : (Date.now() ^ (Math.random() * 0x100000000)) | 0;

/** FC_RUNS_FACTOR, or 1: what every run count is multiplied by (and a long property's time-out with it). */
export const RUNS_FACTOR = Number.isFinite(factor) && factor > 0 ? factor : 1;

export function propertyParameters<T>(numRuns: number): Parameters<T> {
	return { seed: SEED, numRuns: Math.max(1, Math.round(numRuns * RUNS_FACTOR)), endOnFailure: true };
}

export const replayHint = () => `seed ${SEED} (replay: FC_SEED=${SEED})`;
