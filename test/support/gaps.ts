/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The gap suites' common part (test/suites/e2e/gaps*.e2e.test.ts): the ledger recipe as users import
 * it, its trigger checking every few seconds, and a seeded chain script (chainScript.ts) streamed
 * through an emulator that gives up on deliveries after a few seconds of retries, with the faults that
 * lose blocks: an n8n outage longer than those retries (the hook interrupted, its queue dropped, blocks
 * mined meanwhile never evaluated for it), the hook disabled at the service for a while, and
 * deliveries the service drops without a word. No step does what a user would do by hand (no Backfill,
 * no enable): the trigger must close the gaps itself, and the ledger must equal the chain soon after
 * the last fault.
 */
import { setTimeout as sleep } from 'timers/promises';

import { type DeliveryReport, type Emulator } from '../emulator';
import { EXAMPLE_SENDER } from './examples';
import type { N8nInstance } from './n8n/instance';
import type { RecordSetup } from './record';
import { type ChainScript, chainScript, type LedgerRow } from './chainScript';
import { clearLedger, heightsOfTag, ledgerRows, ScriptStream } from './record';

/**
 * The service's side: a failing delivery is given up after about 4 s of retries, which interrupts the hook. A rate
 * limit of 6,000 a minute: the scripts' outage, pause and reorganisations make the trigger replay about 500 heights,
 * and the catch-up takes half of each window (bench part 8 measures it against the free tier's 100).
 */
export const GAPS_EMULATOR = {
	retryDelaysMs: [250, 500, 1000, 2000],
	interruptAfterFailures: 5,
	deliveryTimeoutMs: 30_000,
	rateLimit: { limit: 6_000, windowMs: 60_000 },
};

/** Blocks the ledger hook evaluates before each script (none matching): more than FIRST_WINDOW_MAX (healthCheck/planning/gapState.ts) and 2,000. */
export const AGE_BLOCKS = 2_050;

/** The trigger's Health Check Interval in these suites: 3 s. */
export const CHECK_MINUTES = 0.05;
export const CHECK_MS = CHECK_MINUTES * 60_000;
/** Check intervals of the healthy tail after the faults (at least 5). */
export const TAIL_CHECKS = 6;
/**
 * No replay for this long, and the catch-up of the faults is over (healthyTail): five check intervals, as a window
 * waits only until the stream passes it or goes idle, which takes more than an interval only while it runs behind.
 */
const QUIET_MS = 5 * CHECK_MS;
/** While the ledger settles and in the tail, a block that matches nothing this often: the chain moves on. */
const MOVE_ON_MS = 600;

export interface GapFaults {
	/** Takes the n8n that receives deliveries down (SIGKILL); `revive` brings it back. */
	down: () => Promise<void>;
	revive: () => Promise<void>;
	/**
	 * Set: brought back, it goes down once more as soon as this resolves (its workflows activated, before its first health
	 * check: a crash loop, an upgrade retried), and is brought back again. Where activation enabled the stopped hook and
	 * noted the stop in memory only, the outage was lost with that note (issue #38).
	 */
	crashLoop?: () => Promise<void>;
	/**
	 * Set: once the check replays what the outage missed (its first evaluation after the last start), it goes down again,
	 * and is brought back: the rest of the gap must still come (the plan kept before the replays began).
	 */
	restartWhileReplaying?: boolean;
	/**
	 * Set: the outage waits until this resolves, once the check has kept its state where a restart finds it (the static
	 * data, through the trigger's webhook), as for a hook that has run for a while. Where n8n cannot reach its public
	 * address, the check finds that webhook only where a delivery came in since n8n started; a kill before that loses
	 * what the check knew, which docs/nothing-missed.md says and the Error Workflow is told.
	 */
	stateKept?: () => Promise<void>;
}

export interface GapResult {
	script: ChainScript;
	rows: LedgerRow[];
	/** What happened, for the log line. */
	faults: { outageSteps: number; outageMs: number; interruptions: number; crashLoops: number; restartsWhileReplaying: number; disabledMs: number; silentDrops: number; lostAnswers: number };
	/** Blocks the trigger reported undone without their rollback (hash prefixes). */
	undone: string[];
	/**
	 * Blocks n8n took in the seconds before it was killed, after its last check had heard what it took: their notes died
	 * with the process (docs/nothing-missed.md), so if a reorganisation undid them while n8n was down, nothing can tell.
	 */
	unknowable: string[];
	/** From the last fault to the ledger equal to the chain. */
	settledAfterMs: number;
	/** The ledger hook's deliveries: what the stream cost, and the replays the trigger asked for. */
	deliveries: number;
	evaluations: number;
	/** The height of the chain's next block: the script's tip and the empty blocks mined while the ledger settled are below it. */
	nextHeight: number;
}

const byId = (rows: LedgerRow[]) => [...rows].sort((a, b) => a.eventId.localeCompare(b.eventId));

/**
 * The ledger's rows but the extra ones of excused blocks: those the trigger reported undone without their rollback
 * (docs/nothing-missed.md: the service drops a queued rollback with the rest, and replays none), which stay, named in
 * the report, for the user to remove; and those taken just before a kill (GapResult.unknowable). `excused`: hash
 * prefixes of 16 hex digits.
 */
export function withoutExcused(rows: LedgerRow[], expected: LedgerRow[], excused: string[]): LedgerRow[] {
	const isExcused = (row: LedgerRow) => excused.some((prefix) => row.blockHash.replace(/^0x/, '').startsWith(prefix));
	return rows.filter((row) => !isExcused(row) || expected.some((e) => e.eventId === row.eventId));
}

/** The ledger equals the chain, but for the rows of excused blocks (withoutExcused). */
export function settledLedger(rows: LedgerRow[], expected: LedgerRow[], excused: string[]): boolean {
	return JSON.stringify(byId(withoutExcused(rows, expected, excused))) === JSON.stringify(byId(expected));
}

/** What the Stacks Hooks Trigger wrote in `n8n`'s log, its lines alone. */
export function triggerLog(n8n: Pick<N8nInstance, 'logs'>): string {
	return n8n
		.logs()
		.split('\n')
		.filter((line) => line.includes('Stacks Hooks Trigger'))
		.join('\n');
}

/** The block hashes (first 16 hex digits) the trigger reported undone without their rollback, read from n8n's log. */
export function undoneInLog(logs: string): string[] {
	return [...logs.matchAll(/0x([0-9a-f]{16})… at height \d+/g)].map((match) => match[1]);
}

/**
 * The blocks the ledger hook's deliveries applied that n8n accepted from 2 s before its last check read the hook (the
 * check hears what n8n took just before that read) until it was killed: hash prefixes as the trigger reports them.
 */
function takenJustBefore(emu: Emulator, hookUuid: string, killedAt: number): string[] {
	const reads = emu.requests.filter((request) => request.method === 'GET' && request.path.endsWith(`/me/${hookUuid}`) && request.at <= killedAt);
	const since = (reads.at(-1)?.at ?? 0) - 2_000;
	return emu.deliveries
		.filter((report) => report.hookUuid === hookUuid && report.status === 200 && report.at >= since && report.at <= killedAt)
		.flatMap((report) => report.payload.event.apply.map((block) => block.block_identifier.hash.replace(/^0x/, '').slice(0, 16)));
}

/** A small seeded generator (mulberry32), for where the faults fall. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

export async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
	if (!(await within(check, timeoutMs))) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** Whether `check` came true within `timeoutMs`. */
async function within(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
	for (const deadline = Date.now() + timeoutMs; !(await check()); await sleep(250)) if (Date.now() > deadline) return false;
	return true;
}

async function setEnabled(emu: Emulator, apiKey: string, uuid: string, enabled: boolean): Promise<void> {
	const answer = await fetch(`${emu.url}/me/${uuid}/enabled`, { method: 'PATCH', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ enabled }) });
	if (answer.status !== 204) throw new Error(`PATCH enabled answered ${answer.status}`);
}

/**
 * Streams one seeded script into the ledger with the faults, then waits for the ledger to equal the
 * chain; `limitMs` after the last fault at the most.
 */
export async function runGapSequence(
	setup: RecordSetup,
	opts: {
		seed: number;
		tag: number;
		blocks: number;
		apiKey: string;
		faults: GapFaults;
		limitMs: number;
		undoneReported: () => string[];
	},
): Promise<GapResult> {
	const { emu, postgres } = setup;
	const startHeight = opts.tag * 100_000;
	const script = chainScript(opts.seed, { blocks: opts.blocks, startHeight, tag: opts.tag });
	await clearLedger(postgres);
	const firstReport = emu.deliveries.length;
	const firstRequest = emu.requests.length;
	const rand = random(opts.seed);
	const steps = script.steps.length;
	const at = (from: number, to: number) => Math.floor(steps * (from + rand() * (to - from)));
	// The outage first (n8n's start takes its check longest), the pause next, the silent drops last.
	const outageAt = at(0.15, 0.25);
	const outageSteps = 8 + Math.floor(rand() * 8);
	const disableAt = at(0.4, 0.5);
	const drops = new Set([at(0.55, 0.7), at(0.7, 0.8), at(0.8, 0.9)]);
	const faults = { outageSteps, outageMs: 0, interruptions: 0, crashLoops: 0, restartsWhileReplaying: 0, disabledMs: 0, silentDrops: 0, lostAnswers: 0 };
	const ledgerHook = () => setup.ledger.hookUuid;
	const hookNow = () => emu.hooks().find((hook) => hook.definition.name === 'Ledger');

	let lastFault = 0;
	const unknowable: string[] = [];
	const excused = () => [...opts.undoneReported(), ...unknowable];
	let downSince: number | undefined;
	let disabledSince: number | undefined;
	let replayRestart: Promise<void> | undefined;
	/** While n8n is to go down again during the replay: the script slows down and its silent drops wait for it to be back. */
	let restartPending = false;
	let dropsDue = 0;
	// A hook as users have them: hours old, past FIRST_WINDOW_MAX, so a stop cannot be replayed "from its first block".
	const ledgerBefore = hookNow()?.status.evaluated_block_count ?? 0;
	for (let height = startHeight - AGE_BLOCKS; height < startHeight; height++) await emu.injectBlock({ height, transactions: [] });
	const aged = (hookNow()?.status.evaluated_block_count ?? 0) - ledgerBefore;
	if (aged < AGE_BLOCKS) throw new Error(`the ledger hook evaluated ${aged} of the ${AGE_BLOCKS} blocks that age it`);
	const stream = new ScriptStream(emu);
	for (const [index, step] of script.steps.entries()) {
		if (index === outageAt) {
			await stream.sent();
			await opts.faults.stateKept?.();
			const killedAt = Date.now();
			await opts.faults.down();
			downSince = Date.now();
			unknowable.push(...takenJustBefore(emu, ledgerHook(), killedAt));
		}
		// Longer than the service's retries: the stream gives up and interrupts the hook. Not before a delivery of the ledger
		// hook failed: the script's blocks in the outage may match nothing, and then the service has nothing to give up on.
		const failedSinceDown = async () => {
			await stream.sent();
			return emu.deliveries.some((report) => report.hookUuid === ledgerHook() && report.at >= downSince! && report.error !== undefined);
		};
		if (downSince !== undefined && index >= outageAt + outageSteps && (await failedSinceDown())) {
			// (In queue mode the main's check may already have enabled it again: the last failed try is the sign, or the
			// check's PATCH itself, when the failures that interrupted it were spread over several deliveries.)
			const gaveUp = () =>
				emu.deliveries.some((report) => report.hookUuid === ledgerHook() && report.at >= downSince! && report.error !== undefined && report.attempt > GAPS_EMULATOR.retryDelaysMs.length) ||
				emu.requests.some((request) => request.at >= downSince! && request.method === 'PATCH' && request.path.endsWith(`/me/${ledgerHook()}/enabled`));
			await until('the service giving up on the ledger hook', () => hookNow()?.status.status === 'interrupted' || gaveUp(), 30_000);
			faults.interruptions++;
			await opts.faults.revive();
			if (opts.faults.crashLoop) {
				// Its workflows activated, and down again within the first check's startup delay (at least 5 s).
				await opts.faults.crashLoop();
				await opts.faults.down();
				await opts.faults.revive();
				faults.crashLoops++;
			}
			if (opts.faults.restartWhileReplaying) {
				// While the script goes on: the gap's end is known, and its replay begins, once the service evaluates new blocks.
				const upAt = Date.now();
				restartPending = true;
				replayRestart = (async () => {
					await until('the check replaying what the outage missed', () => emu.requests.some((request) => request.at >= upAt && request.path.endsWith(`/me/${ledgerHook()}/evaluate`)), 120_000);
					const killedAt = Date.now();
					await opts.faults.down();
					unknowable.push(...takenJustBefore(emu, ledgerHook(), killedAt));
					await opts.faults.revive();
					faults.restartsWhileReplaying++;
					restartPending = false;
					lastFault = Date.now();
				})();
			}
			faults.outageMs = Date.now() - downSince;
			faults.outageSteps = index - outageAt;
			lastFault = Date.now();
			downSince = undefined;
		}
		if (index === disableAt) {
			await setEnabled(emu, opts.apiKey, ledgerHook(), false);
			disabledSince = Date.now();
			lastFault = Date.now();
		}
		if (disabledSince !== undefined && hookNow()?.status.enabled) {
			faults.disabledMs = Date.now() - disabledSince;
			disabledSince = undefined;
		}
		// Applies (chainhook#739): a dropped reorganisation's rollback is beyond any replay (docs/nothing-missed.md).
		// (Not while n8n is down or about to be: a drop armed then could fall on a delivery that fails anyway.)
		if (drops.has(index)) dropsDue++;
		if (dropsDue > 0 && !restartPending) {
			emu.dropNextDeliveries(1, { hookUuid: ledgerHook(), appliesOnly: true });
			dropsDue--;
		}
		await stream.send(step);
		// Blocks come at a pace a check interval sees several windows of.
		// (Slower while n8n is to go down during the replay: the chain must move on for the replay to begin, and the script
		// must not end before it is back.)
		if (step.kind !== 'loseAnswer') await sleep(restartPending ? 300 : 40);
	}
	await stream.sent();
	await replayRestart;
	if (downSince !== undefined) throw new Error(`no delivery of the ledger hook failed from the outage at step ${outageAt} to the script's end: a script that matches nothing`);
	const silent = emu.deliveries.slice(firstReport).filter((report) => report.silent);
	faults.silentDrops = silent.length;
	faults.lostAnswers = emu.deliveries.slice(firstReport).filter((report) => report.answerLost).length;
	lastFault = Math.max(lastFault, ...silent.map((report) => report.at));
	// The chain moves on meanwhile, as a real one does, with blocks that match nothing: the trigger replays no height
	// near the tip before the chain has moved past it (healthCheck/plan.ts, SETTLED_DEPTH), and a stopped hook's gap ends
	// where the service evaluates again. Not thrown on: the caller compares the ledger with the chain and says which
	// rows differ.
	const tip = script.canonical.at(-1)!;
	let nextHeight = tip.height + 1;
	const deadline = Date.now() + Math.max(1000, opts.limitMs - (Date.now() - lastFault));
	let equal = false;
	for (let lastBlock = 0; !equal && Date.now() < deadline; await sleep(250)) {
		if (Date.now() - lastBlock >= MOVE_ON_MS) {
			await emu.injectBlock({ height: nextHeight, transactions: [], ...(nextHeight === tip.height + 1 && { parentHash: tip.hash }) });
			nextHeight++;
			lastBlock = Date.now();
		}
		equal = settledLedger(await ledgerRows(postgres, heightsOfTag(opts.tag)), script.expectedRows, excused());
	}
	const settledAfterMs = equal ? Date.now() - lastFault : Number.POSITIVE_INFINITY;
	const reports: DeliveryReport[] = emu.deliveries.slice(firstReport).filter((report) => report.hookUuid === ledgerHook());
	return {
		script,
		rows: await ledgerRows(postgres, heightsOfTag(opts.tag)),
		faults,
		undone: opts.undoneReported(),
		unknowable,
		settledAfterMs,
		deliveries: reports.length,
		evaluations: emu.requests.slice(firstRequest).filter((request) => request.path.endsWith('/evaluate')).length,
		nextHeight,
	};
}

export function describeGapResult(label: string, result: GapResult, seed: number): string {
	const { counts } = result.script;
	const { faults } = result;
	return (
		`${label}: seed ${seed} (replay: GAPS_SEED=${seed}); ${result.script.steps.length} steps, ${counts.blocks} blocks, ${counts.reorgs} reorganisations (${counts.flipFlops} flip-flops), ` +
		`the hook ${AGE_BLOCKS} blocks old before it; ${faults.lostAnswers} answers lost (${counts.lostAnswers} in the script, one armed at a time); n8n down ${(faults.outageMs / 1000).toFixed(1)} s over ${faults.outageSteps} steps (${faults.interruptions} interruption${faults.crashLoops > 0 ? `, then up and killed again before its first check ${faults.crashLoops} time(s)` : ''}${faults.restartsWhileReplaying > 0 ? `, and again while replaying the gap ${faults.restartsWhileReplaying} time(s)` : ''}), ` +
		`hook disabled ${(faults.disabledMs / 1000).toFixed(1)} s, ${faults.silentDrops} deliveries dropped without a word; ledger ${result.rows.length} rows (chain ${counts.transfers}), ` +
		`equal to the chain ${(result.settledAfterMs / 1000).toFixed(1)} s after the last fault (but for ${result.undone.length} block(s) reported undone without their rollback, ` +
		`${result.unknowable.length} taken just before the kill, which no process could note); ` +
		`${result.deliveries} deliveries to the ledger hook, ${result.evaluations} replayed heights`
	);
}

/** Seeds for this run: GAPS_SEED replays one; GAPS_SEQUENCES (default `count`) runs more. */
export function gapSeeds(base: number, count: number): number[] {
	const replay = Number(process.env.GAPS_SEED);
	if (Number.isSafeInteger(replay)) return [replay];
	const n = Number(process.env.GAPS_SEQUENCES ?? count);
	return Array.from({ length: n }, (_, i) => (base + i * 7919) | 0);
}

/** What the trigger told the user: the workflow's failed executions (n8n 2.x's saveFailedExecution), each with its message and when. */
export async function alertsOf(n8n: N8nInstance, workflowId: string): Promise<Array<{ at: number; message: string }>> {
	const failed = await n8n.api.executions({ workflowId, status: 'error', includeData: true });
	return failed.map((run) => {
		// A trigger's alert is saved with stoppedAt alone (api.ts, Execution): without it no alert would ever fall in a tail.
		const at = Date.parse(run.stoppedAt ?? run.startedAt ?? '');
		if (!Number.isFinite(at)) throw new Error(`execution ${run.id} of workflow ${workflowId} has no time: startedAt ${run.startedAt}, stoppedAt ${run.stoppedAt}`);
		return { at, message: String(run.data?.resultData?.error?.message ?? '') };
	});
}

export interface TailResult {
	blocks: number;
	checks: number;
	/** Requests for the hook during the tail. */
	gets: number;
	evaluations: number;
	/** Alerts that began during the tail. */
	alerts: string[];
	/** The heights after the tail: the next free one. */
	nextHeight: number;
	/** How long the wait for the catch-up to end took (no replay for QUIET_MS) before the tail began. */
	quietAfterMs: number;
	/** When the tail's first block was mined. */
	startedAt: number;
	/** How long the tail lasted: `checks` intervals, longer while a loaded machine spaces the checks out. */
	durationMs: number;
}

/**
 * A healthy stream after the faults: first the trigger's own catch-up is let finish, the chain moving with blocks
 * that match nothing, until no replay came for QUIET_MS (five check intervals; 120 s at the most: a check that keeps replaying never gets there), then a block every 600 ms for
 * `checks` check intervals, every other one a STX transfer from `sender`, all delivered; longer (three times at the
 * most) until the check has read the hook `checks` - 1 times, as each check's own time adds to the interval and a
 * loaded machine spaces them out. Counts what the trigger
 * cost at the service meanwhile (GETs and replays of `hookUuid`) and what it said (`alerts`).
 */
export async function healthyTail(
	emu: Emulator,
	opts: {
		hookUuid: () => string;
		fromHeight: number;
		parentHash?: string;
		checks: number;
		sender: string;
		alerts: () => Promise<Array<{ at: number; message: string }>>;
		/** Called once the catch-up of the faults is over, before the tail's first block. */
		whenQuiet?: () => void;
		/** Other hooks whose catch-up must be over too before the tail begins (their requests are not counted). */
		alsoQuiet?: () => string[];
	},
): Promise<TailResult> {
	const quietHooks = () => [opts.hookUuid(), ...(opts.alsoQuiet?.() ?? [])];
	const evaluationsOf = (since: number) => emu.requests.filter((request) => request.at >= since && quietHooks().some((uuid) => request.path.endsWith(`/me/${uuid}/evaluate`)));
	let height = opts.fromHeight;
	const mine = async (transactions: Array<{ kind: 'stx_transfer'; sender: string; recipient: string; amount: number }>) => {
		await emu.injectBlock({ height, transactions, ...(height === opts.fromHeight && opts.parentHash && { parentHash: opts.parentHash }) });
		height++;
	};
	// The chain moves on meanwhile, with blocks that match nothing: heights near the tip wait for it before they are
	// replayed (healthCheck/plan.ts, SETTLED_DEPTH), and the windows of the faults are judged once it has moved past them.
	const waitFrom = Date.now();
	for (const deadline = waitFrom + 120_000; Date.now() < deadline; await sleep(MOVE_ON_MS)) {
		if (Date.now() - waitFrom >= QUIET_MS && evaluationsOf(Date.now() - QUIET_MS).length === 0) break;
		await mine([]);
	}
	const quietAfterMs = Date.now() - waitFrom;
	opts.whenQuiet?.();
	const start = Date.now();
	const firstRequest = emu.requests.length;
	let blocks = 0;
	const hookGets = () => emu.requests.slice(firstRequest).filter((request) => request.method === 'GET' && request.path.endsWith(`/me/${opts.hookUuid()}`)).length;
	const due = () => Date.now() < start + opts.checks * CHECK_MS || (hookGets() < opts.checks - 1 && Date.now() < start + 3 * opts.checks * CHECK_MS);
	for (; due(); await sleep(MOVE_ON_MS)) {
		await mine(blocks % 2 === 0 ? [{ kind: 'stx_transfer', sender: opts.sender, recipient: 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG', amount: 1_000 + blocks }] : []);
		blocks++;
	}
	const requests = emu.requests.slice(firstRequest).filter((request) => request.path.includes(`/me/${opts.hookUuid()}`));
	const checks = hookGets();
	return {
		blocks,
		checks,
		gets: requests.filter((request) => request.method === 'GET').length,
		evaluations: requests.filter((request) => request.path.endsWith('/evaluate')).length,
		alerts: (await opts.alerts()).filter((alert) => alert.at >= start).map((alert) => alert.message),
		nextHeight: height,
		quietAfterMs,
		startedAt: start,
		durationMs: Date.now() - start,
	};
}

export function describeTail(result: TailResult): string {
	return (
		`healthy tail: ${result.blocks} blocks over ${result.checks} checks (after ${(result.quietAfterMs / 1000).toFixed(0)} s for the catch-up to end): ` +
		`${result.gets} GET(s), ${result.evaluations} replayed height(s), ${result.alerts.length} alert(s)${result.alerts.length ? `: ${result.alerts.join(' | ')}` : ''}`
	);
}

/**
 * After a gap sequence: the healthy tail on the ledger's hook must cost one GET a check (the interval's checks,
 * spread by a tenth, and no more than a few soon ones for a delivery on its way, over the tail's intervals as it lasted),
 * replay nothing and raise no alert;
 * and no alert that infers a loss from missing knowledge may have come during the faults either.
 */
export async function expectQuietTail(setup: RecordSetup, result: GapResult, opts: { n8n: N8nInstance; emu: Emulator }): Promise<void> {
	const tip = result.script.canonical.at(-1)!;
	const alerts = () => alertsOf(opts.n8n, setup.ledger.workflowId);
	const tail = await healthyTail(opts.emu, {
		hookUuid: () => setup.ledger.hookUuid,
		fromHeight: result.nextHeight,
		...(result.nextHeight === tip.height + 1 && { parentHash: tip.hash }),
		checks: TAIL_CHECKS,
		sender: EXAMPLE_SENDER,
		alerts,
	});
	console.log(describeTail(tail));
	if (tail.evaluations > 0 || tail.alerts.length > 0) console.log(`the trigger said:\n${triggerLog(opts.n8n)}`);
	expect({ replayed: tail.evaluations, alerts: tail.alerts }).toEqual({ replayed: 0, alerts: [] });
	expect(tail.gets).toBeGreaterThanOrEqual(TAIL_CHECKS - 1);
	// TAIL_CHECKS + 3 over a tail of TAIL_CHECKS intervals; as many more as intervals it lasted longer.
	expect(tail.gets).toBeLessThanOrEqual(Math.max(TAIL_CHECKS, Math.floor(tail.durationMs / CHECK_MS)) + 3);
	expect((await alerts()).filter((alert) => /none reached n8n|cannot tell whether/.test(alert.message))).toEqual([]);
}
