/**
 * The health check: while the workflow is active, every few minutes, the trigger makes sure its hook
 * still delivers and that the workflow got every block it matched, and mends what it can by itself.
 * One check (`runCheck`) is five steps, in this order. Step 1 is a call through the channel; each
 * other step is a file of its own beside this one.
 *
 * 1. hear what n8n took, before the hook is read (channel/ownWebhook.ts, `exchange`);
 * 2. read the hook, and bring it back if it stopped (repair.ts);
 * 3. plan the gaps: which heights may be missing, which to replay now (plan.ts);
 * 4. keep the plan, then replay (replay.ts);
 * 5. tell the user, from what the steps found: n8n's log, and the Error Workflow once per incident (report.ts).
 *
 * Each step takes the check's object (check.ts) and returns only what it found; none calls another.
 * Below them are two folders, and neither imports a step:
 * - planning/: the gap plan and the incidents, pure (no request, no clock);
 * - channel/: what passes between n8n's processes: what n8n received, the call to the trigger's own
 *   webhook, and the check's state in this process.
 * What the check does, for users, is in docs/nothing-missed.md.
 *
 * It runs as the node's trigger(): n8n runs that for every active workflow, at start-up (2.x does not
 * call checkExists then for a webhook it already knows) and on activation, and closes it on
 * deactivation; in queue mode and multi-main setups only on the main process that leads. The loop
 * below schedules the checks.
 */
import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { healthCheckMs } from '../hook/checkInterval';
import { stored } from '../hook/keptHook';
import { type Checked, type GapFindings, type HealthCheckOutcome, type Hooked, openCheck, openRun, type Run } from './check';
import { exchange, internalBase } from './channel/ownWebhook';
import type { GapOutcome } from './planning/incidents';
import { forgetCheckState } from './channel/checkState';
import { takeLeftStopped } from '../hook/activationNotes';
import { planGaps } from './plan';
import { repair } from './repair';
import { ifFree } from '../turns';
import { replay } from './replay';
import { report, reportCheckFailed } from './report';

/** After n8n starts: soon, spread so that many workflows do not all call at once. */
const STARTUP_DELAY_MS = { min: 5_000, max: 35_000 };
/** When activation or deactivation holds the node's turn, the check waits this long and tries again. */
const BUSY_RETRY_MS = 2_000;
/** While heights are left to replay, the next check comes this soon (the transport keeps the pace within the rate limit). */
const CATCH_UP_PAUSE_MS = 1_000;
/**
 * When a check finds the window it closed short of blocks (or a stopped hook brought back), the next comes after this
 * long, or a third of the interval if shorter, rather than a whole interval: a block lost is then replayed about one
 * interval after it was lost. Never twice in a row, so a stream that is always a little behind costs one check more an
 * interval at the most.
 */
const SOON_MS = 15_000;
/** How often a sleeping check loop looks whether n8n closed the trigger. */
const CLOSE_POLL_MS = 1_000;

/** One whole check, its five steps in order. Steps 3 and 4 are left out when step 2 found no hook that delivers. */
export async function runCheck(run: Run): Promise<{ outcome: Checked['outcome']; gaps?: GapOutcome }> {
	const check = await openCheck(run);
	// 1. What n8n took, before the hook is read: the blocks counted were all evaluated before that read (planning/gapPlan.ts).
	// With no hook kept (n8n killed while activating), step 2 finds it, and the check hears after it.
	const heardBefore = check.kept && (await exchange(check, check.kept, 'gather'));
	// 2. The hook read, and brought back if it stopped; in the node's turn, so that deactivation never waits for a replay.
	// 'busy' when activation or deactivation holds the turn.
	const checked: Checked = (await ifFree(check.ctx, async () => await repair(check))) ?? { outcome: 'busy' };
	let found: GapFindings | undefined;
	if (checked.kept) {
		// From here on, the check carries the hook that delivers now.
		const hooked: Hooked = { ...check, hook: { ...checked, kept: checked.kept } };
		const heard = heardBefore ?? (await exchange(hooked, hooked.hook.kept, 'gather'));
		// 3. Which heights may be missing, and which to replay now.
		const plan = planGaps(hooked, heard);
		// 4. The plan kept, then the replays.
		const replayed = await replay(hooked, heard, plan);
		found = { hooked, heard, plan, replayed };
	}
	// 5. What the steps found, told.
	const gaps = report(check, checked, found);
	return { outcome: checked.outcome, ...(gaps && { gaps }) };
}

/** Step 2 alone, said in n8n's log (the engine tests). Throws when the service cannot be asked or refuses a repair. */
export async function checkHookHealth(ctx: ITriggerFunctions): Promise<HealthCheckOutcome> {
	const check = await openCheck(openRun(ctx));
	const checked: Checked = (await ifFree(ctx, async () => await repair(check))) ?? { outcome: 'busy' };
	report(check, checked);
	return checked.outcome;
}

/** One check of the trigger `ctx`, outside its schedule (the engine tests). */
export async function checkHookAndGaps(ctx: ITriggerFunctions): Promise<{ outcome: Checked['outcome']; gaps?: GapOutcome }> {
	return await runCheck(openRun(ctx));
}

function spread(ms: number): number {
	return Math.round(ms * (0.9 + Math.random() * 0.2));
}

/**
 * trigger() of an active workflow: checks on a schedule until n8n closes it. Waits with n8n-workflow's
 * sleep() in short steps: node code may not hold timers of its own (n8n's lint), and n8n's
 * registerCron changed its signature between n8n 1.x and 2.x and fires every workflow's cron on
 * the same second.
 */
export function startHealthChecks(ctx: ITriggerFunctions): ITriggerResponse {
	// Checks off: nothing runs, and nothing is kept for the node.
	if (!(healthCheckMs(ctx) > 0)) return {};
	let closed = false;
	const run = openRun(ctx, () => closed);
	const { intervalMs, internalAddress, atStartup } = run.settings;
	try {
		internalBase(internalAddress);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message, {
			description: 'Set it to the address this n8n reaches its webhook processes at (queue mode), such as http://n8n-webhook:5678, or leave it empty to use the public webhook URL.',
		});
	}

	const pause = async (ms: number): Promise<void> => {
		for (const until = Date.now() + ms; run.stillOpen() && Date.now() < until; ) await sleep(Math.min(CLOSE_POLL_MS, until - Date.now()));
	};
	const checkOnce = async () => {
		try {
			return await runCheck(run);
		} catch (error) {
			reportCheckFailed(run, error as Error);
			return undefined;
		}
	};

	// Spread over half a minute, so that many workflows do not call at once; at once when no hook is kept (repair.ts,
	// foundByUrl); at the spread's start when activation left a stopped hook for this check to bring back (channel/checkState.ts).
	const spreadStart = STARTUP_DELAY_MS.min + Math.random() * (STARTUP_DELAY_MS.max - STARTUP_DELAY_MS.min);
	const startupDelay = !stored(ctx) ? BUSY_RETRY_MS : takeLeftStopped(ctx) ? STARTUP_DELAY_MS.min : spreadStart;
	void (async () => {
		await pause(Math.min(atStartup ? startupDelay : Infinity, spread(intervalMs)));
		let soonBefore = false;
		while (run.stillOpen()) {
			const checked = await checkOnce();
			const catchingUp = checked?.gaps?.left ? Math.min(Math.max(CATCH_UP_PAUSE_MS, checked.gaps.waitMs ?? 0), intervalMs) : undefined;
			const soon: number | undefined = checked?.gaps?.soon === true && !soonBefore ? Math.min(SOON_MS, intervalMs / 3) : undefined;
			soonBefore = soon !== undefined;
			const next = checked?.outcome === 'busy' ? BUSY_RETRY_MS : (catchingUp ?? soon ?? spread(intervalMs));
			await pause(next);
		}
	})();
	return {
		closeFunction: async () => {
			closed = true;
			forgetCheckState(ctx);
		},
	};
}
