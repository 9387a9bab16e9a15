/**
 * The health check: while the workflow is active, every few minutes, the trigger makes sure its hook
 * still delivers and that the workflow got every block it matched, and mends what it can by itself.
 * One check, `checkHookAndGaps`, is five steps, each in a file of its own, in this order:
 *
 * 1. hear what n8n took (../gaps/hear.ts), before the hook is read;
 * 2. read the hook, and bring it back if it stopped (repair.ts);
 * 3. plan the gaps: which heights may be missing, which to replay now (../gaps/planGaps.ts, ../gaps/plan.ts);
 * 4. keep the plan, then replay (../gaps/replay.ts);
 * 5. tell the user: the Error Workflow once per incident (alerts.ts).
 *
 * Below them, and shared with the rest of the trigger: the check's memory (../gaps/checkState.ts), the
 * line to the trigger's own webhook (../gaps/ownWebhook.ts), the hook kept in the static data
 * (keptHook.ts), the hook's lifecycle (lifecycle.ts), n8n's log (log.ts) and the service's API. No step
 * calls back into this file or into another step.
 *
 * It runs as the node's trigger(): n8n runs that for every active workflow, at start-up (2.x does not
 * call checkExists then for a webhook it already knows) and on activation, and closes it on
 * deactivation; in queue mode and multi-main setups only on the main process that leads. The loop
 * below schedules the checks and says once in n8n's log what keeps failing.
 */
import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { backgroundConnection } from '../../shared/transport/connection';
import { checkState, takeLeftStopped } from '../gaps/checkState';
import { hear } from '../gaps/hear';
import { internalBase } from '../gaps/ownWebhook';
import { DEFAULT_CATCH_UP_LIMIT, planGaps } from '../gaps/planGaps';
import { type GapOutcome, replayGaps } from '../gaps/replay';
import { DEFAULT_STALL_MINUTES, tellUser } from './alerts';
import { atStartup, healthCheckMs } from './checkInterval';
import { stored } from './keptHook';
import { hookParameters } from './lifecycle';
import { whereInLog } from './log';
import { type HealthCheckOutcome, repairHook } from './repair';

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

/** The node's options the checks use, read when n8n runs trigger(): the checks later run outside any run, where expressions cannot be evaluated. */
interface CheckSettings {
	catchUpLimit: number;
	stallMinutes: number;
	intervalMs: number;
	/** Where the check calls the trigger's webhook instead of the production URL; empty: that URL. */
	internalAddress: string;
	/** n8n runs this trigger at its own start (or a new leader's), not on an activation. */
	atStartup: boolean;
}

function checkSettings(ctx: ITriggerFunctions): CheckSettings {
	const option = (name: string, fallback: number) => {
		const value = ctx.getNodeParameter(`options.${name}`, fallback) as number;
		return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
	};
	return {
		catchUpLimit: option('catchUpLimit', DEFAULT_CATCH_UP_LIMIT),
		stallMinutes: option('stallMinutes', DEFAULT_STALL_MINUTES),
		// As given: a value that is not a positive number turns the checks off (startHealthChecks).
		intervalMs: healthCheckMs(ctx),
		internalAddress: String(ctx.getNodeParameter('options.internalWebhookAddress', '') ?? ''),
		atStartup: atStartup(ctx),
	};
}

/** One whole check, its five steps in order. The gap steps are left out when the hook could not be checked. */
export async function checkHookAndGaps(
	ctx: ITriggerFunctions,
	params = hookParameters(ctx),
	opts: { stillOpen?: () => boolean; settings?: CheckSettings } = {},
): Promise<{ outcome: HealthCheckOutcome; gaps?: GapOutcome }> {
	const settings = opts.settings ?? checkSettings(ctx);
	const connection = await backgroundConnection(ctx);
	const memory = checkState(ctx);
	// 1. What n8n took, before the hook is read: the blocks counted were all evaluated before that read (gaps/plan.ts).
	const heardBefore = await hear(ctx, connection, memory, settings.internalAddress);
	// 2. The hook read, and brought back if it stopped; in the node's turn, so that deactivation never waits for a replay.
	const repaired = await repairHook(ctx, params, connection);
	const { hookId } = repaired;
	if (!repaired.connection || !hookId) return { outcome: repaired.outcome };
	const checked = { ...repaired, hookId };
	// (With no hook kept before the repair found one, heard now.)
	const heard = heardBefore ?? (await hear(ctx, connection, memory, settings.internalAddress));
	// 3. Which heights may be missing, and which to replay now.
	const plan = planGaps(ctx, connection, memory, checked, heard, settings);
	// 4. The plan kept, then the replays.
	const gaps = await replayGaps(ctx, connection, memory, plan, { hookId, internalAddress: settings.internalAddress, stillOpen: opts.stillOpen ?? (() => true) });
	// 5. The incidents this check saw: the Error Workflow for each that began.
	tellUser(ctx, memory, checked, gaps, settings.stallMinutes);
	return { outcome: checked.outcome, gaps };
}

interface LoopState {
	closed: boolean;
	failing: boolean;
	/** Why the last check could not know what n8n received, once said in the log. */
	blind?: string;
	/** Why the last check could not reach the trigger's webhook, and counted what this process took itself, once said. */
	unreachable?: string;
	/** Where the check last heard its webhook where this process takes deliveries, once said. */
	nearby?: string;
}

/** What the gap step did, in n8n's log: each finding (logged by the step), a replay that stopped, and once, why it could not see. */
function reportGaps(ctx: ITriggerFunctions, gaps: GapOutcome | undefined, state: LoopState): void {
	if (!gaps) return;
	const { where, meta } = whereInLog(ctx);
	if (gaps.blind && !state.blind) {
		ctx.logger.warn(
			`${where}: cannot tell which blocks reached the workflow: ${gaps.blind} (${gaps.callError ?? 'no answer'}), and this n8n process has taken none of the hook's deliveries since it started. A hook that stops is still brought back and what it missed replayed; a match lost otherwise is not found. In queue mode, set the trigger's Internal Webhook Address to where this main process reaches the webhook processes.`,
			meta,
		);
	}
	state.blind = gaps.blind;
	// (Not before this process took a delivery: it then calls its webhook where that came in, and says so below.)
	if (gaps.unreachable && !gaps.awaitingDelivery && !state.unreachable) {
		ctx.logger.info(
			`${where}: ${gaps.unreachable} (${gaps.callError ?? 'no answer'}). The health check counts what this n8n process took itself, which is every delivery when it runs alone (regular mode); it keeps that in memory, so a restart of n8n forgets it, with a gap not yet replayed: after one it judges only what came since, and a hook found stopped then is replayed from the service's record of where it stopped. To keep it across restarts, set the trigger's Internal Webhook Address: in regular mode to n8n's own address (such as http://localhost:5678), in queue mode to where this main process reaches the webhook processes.`,
			meta,
		);
	}
	state.unreachable = gaps.awaitingDelivery ? undefined : gaps.unreachable;
	if (gaps.nearby && gaps.nearby !== state.nearby) {
		ctx.logger.info(
			`${where}: n8n's webhook URL cannot be reached from inside; the health check calls the trigger's webhook where this n8n process takes its deliveries (${gaps.nearby}), and keeps its state there across restarts.`,
			meta,
		);
	}
	state.nearby = gaps.nearby;
	if (gaps.replayError) ctx.logger.warn(`${where}: the replay of missed blocks stopped (${gaps.replayError}); ${gaps.left} height(s) are left and are tried again at the next check.`, meta);
	if (gaps.overLimit) {
		const [from, to] = gaps.overLimit;
		ctx.logger.warn(`${where}: heights ${from}-${to} may have been missed and are over the Catch-Up Limit: they are not replayed. Backfill them with the Stacks Hooks node (Hook > Backfill).`, meta);
	}
}

function spread(ms: number): number {
	return Math.round(ms * (0.9 + Math.random() * 0.2));
}

/** How often a sleeping check loop looks whether n8n closed the trigger. */
const CLOSE_POLL_MS = 1_000;

/**
 * trigger() of an active workflow: checks on a schedule until n8n closes it. Waits with n8n-workflow's
 * sleep() in short steps: node code may not hold timers of its own (n8n's lint), and n8n's
 * registerCron changed its signature between n8n 1.x and 2.x and fires every workflow's cron on
 * the same second.
 */
export function startHealthChecks(ctx: ITriggerFunctions): ITriggerResponse {
	const settings = checkSettings(ctx);
	const { intervalMs } = settings;
	if (!(intervalMs > 0)) return {};
	try {
		internalBase(settings.internalAddress);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), (error as Error).message, {
			description: 'Set it to the address this n8n reaches its webhook processes at (queue mode), such as http://n8n-webhook:5678, or leave it empty to use the public webhook URL.',
		});
	}
	const minutes = intervalMs / 60_000;
	const params = hookParameters(ctx);
	const state: LoopState = { closed: false, failing: false };

	const pause = async (ms: number): Promise<void> => {
		for (const until = Date.now() + ms; !state.closed && Date.now() < until; ) await sleep(Math.min(CLOSE_POLL_MS, until - Date.now()));
	};

	const checkOnce = async (): Promise<{ outcome: HealthCheckOutcome; gaps?: GapOutcome } | undefined> => {
		try {
			const checked = await checkHookAndGaps(ctx, params, { stillOpen: () => !state.closed, settings });
			if (state.failing) ctx.logger.info(`Stacks Hooks Trigger "${ctx.getNode().name}": the health check reaches the service again`);
			state.failing = false;
			reportGaps(ctx, checked.gaps, state);
			return checked;
		} catch (error) {
			if (!state.failing) {
				const { where, meta } = whereInLog(ctx);
				ctx.logger.warn(`${where}: the health check did not complete: ${(error as Error).message}. It tries again every ${minutes} min; this is logged once until a check completes.`, meta);
			}
			state.failing = true;
			return undefined;
		}
	};

	const { atStartup } = settings;
	// Spread over half a minute, so that many workflows do not call at once; at once when no hook is kept (repair.ts,
	// foundByUrl); at the spread's start when activation left a stopped hook for this check to bring back (checkState.ts).
	const spreadStart = STARTUP_DELAY_MS.min + Math.random() * (STARTUP_DELAY_MS.max - STARTUP_DELAY_MS.min);
	const startupDelay = !stored(ctx) ? BUSY_RETRY_MS : takeLeftStopped(ctx) ? STARTUP_DELAY_MS.min : spreadStart;
	void (async () => {
		await pause(Math.min(atStartup ? startupDelay : Infinity, spread(intervalMs)));
		let soonBefore = false;
		while (!state.closed) {
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
			state.closed = true;
		},
	};
}
