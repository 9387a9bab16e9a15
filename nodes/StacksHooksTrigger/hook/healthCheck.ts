/**
 * The health check: while the workflow is active, every few minutes, the trigger makes sure its hook
 * still delivers, and brings it back without anyone noticing when it stopped:
 * - disabled at the service, or `interrupted` by the service after failed deliveries (enabled stays
 *   true): one PATCH .../enabled {enabled: true} resumes it;
 * - deleted (by hand, or by any other client): the hook posting to this node's URL is adopted if one
 *   exists, else it is registered again.
 * Each repair is logged once, at
 * info level, with what was done and why; a check that cannot reach the service logs one warning
 * until a check succeeds again.
 *
 * It runs as the node's trigger(): n8n runs that for every active workflow, at start-up (2.x does not
 * call checkExists then for a webhook it already knows) and on activation, and closes it on
 * deactivation; in queue mode and multi-main setups only on the main process that leads.
 */
import type { ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { getHook, listHooks } from '../../shared/api/hookEndpoints';
import type { Hook } from '../../shared/schemas';
import { backgroundConnection, type Connection } from '../../shared/transport/connection';
import { asNodeError, isNotFound } from '../../shared/transport/errors';
import {
	desiredDefinition,
	ensureDelivering,
	type HookParameters,
	hookParameters,
	keepOneOf,
	logHealed,
	registerEnabled,
	remember,
	stored,
	type StoredHook,
	whyNotDelivering,
} from './lifecycle';
import { ifFree } from './turns';
import { checkState, takeStoppedAtActivation } from '../gaps/checkState';
import { internalBase } from '../gaps/ownWebhook';
import { closeGaps, DEFAULT_CATCH_UP_LIMIT, type GapOutcome, hearReceived } from '../gaps/closeGaps';
import type { Counts } from '../gaps/plan';
import { type AlertState, assess, DEFAULT_STALL_MINUTES, emptyAlerts, report } from './alerts';

export const DEFAULT_HEALTH_CHECK_MINUTES = 5;
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

export type HealthCheckOutcome =
	/** Delivering, or expired on purpose: nothing done. */
	| 'healthy'
	/** Was disabled or interrupted: enabled again. */
	| 'enabled'
	/** Was deleted: the hook posting to this node's URL was adopted, or one registered again. */
	| 'registered'
	/** No hook remembered yet (activation still running, or it failed): nothing to check. */
	| 'nothing-to-check'
	/** Activation or deactivation is running for this node: the check did not run. */
	| 'busy';

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
		intervalMs: (ctx.getNodeParameter('options.healthCheckMinutes', DEFAULT_HEALTH_CHECK_MINUTES) as number) * 60_000,
		internalAddress: String(ctx.getNodeParameter('options.internalWebhookAddress', '') ?? ''),
		atStartup: ['init', 'leadershipChange'].includes(ctx.getActivationMode()),
	};
}

/** What one check found and did to the hook, and the hook as it read it (for the gap step). */
interface Checked {
	outcome: HealthCheckOutcome;
	connection?: Connection;
	/** The hook as read, before any repair; undefined when it had been deleted. */
	read?: Hook;
	readAt?: number;
	/** The hook that delivers after the check. */
	hookId?: string;
}

/** One health check of the production hook. Throws when the service cannot be asked or refuses a repair. */
export async function checkHookHealth(ctx: ITriggerFunctions, params = hookParameters(ctx)): Promise<HealthCheckOutcome> {
	return (await checkRepair(ctx, params)).outcome;
}

async function checkRepair(ctx: ITriggerFunctions, params: HookParameters, connection?: Connection): Promise<Checked> {
	return (await ifFree(ctx, async () => await checkNow(ctx, params, connection))) ?? { outcome: 'busy' };
}

/**
 * One whole check: the hook (checkHookHealth), then the heights it may have missed (../gaps/), outside
 * the node's turn, so that deactivation does not wait for a replay. The gap step is left out when the
 * hook could not be checked.
 */
export async function checkHookAndGaps(
	ctx: ITriggerFunctions,
	params = hookParameters(ctx),
	opts: { stillOpen?: () => boolean; settings?: CheckSettings } = {},
): Promise<{ outcome: HealthCheckOutcome; gaps?: GapOutcome }> {
	const connection = await backgroundConnection(ctx);
	// What n8n took, before the hook is read: the blocks counted were all evaluated before that read (gaps/plan.ts).
	const settings = opts.settings ?? checkSettings(ctx);
	const heard = stored(ctx) ? await hearReceived(ctx, connection, settings.internalAddress) : undefined;
	const checked = await checkRepair(ctx, params, connection);
	if (!checked.connection || !checked.hookId) return { outcome: checked.outcome };
	const memory = checkState(ctx);
	const before = (memory.state.alerts as AlertState | undefined) ?? emptyAlerts();
	// Brought back by activation (n8n's start after an outage) rather than by a check: a repair all the same.
	const atActivation = takeStoppedAtActivation(ctx, checked.hookId);
	const gaps = await closeGaps(ctx, checked.connection, {
		read: checked.outcome === 'healthy' && atActivation ? atActivation : checked.read,
		readAt: checked.readAt ?? Date.now(),
		hookId: checked.hookId,
		repaired: checked.outcome === 'enabled' || checked.outcome === 'registered' || (checked.outcome === 'healthy' && atActivation !== undefined),
		// Enabled again, the same hook goes on from its counts as read; one registered or taken over, from counts not kept.
		resumedFrom: checked.outcome === 'enabled' && checked.read ? countsOf(checked.read) : checked.outcome === 'healthy' && atActivation ? countsOf(atActivation) : undefined,
		stillOpen: opts.stillOpen ?? (() => true),
		catchUpLimit: settings.catchUpLimit,
		hold: before.incidents.deliveryFailing !== undefined,
		heard,
		intervalMs: settings.intervalMs,
		internalAddress: settings.internalAddress,
		atStartup: settings.atStartup,
	});
	// The incidents this check saw: the Error Workflow for each that began (hook/alerts.ts).
	const status = (checked.read?.status ?? {}) as Record<string, unknown>;
	const delivering = checked.outcome === 'healthy';
	const { state, began, ended } = assess(before, {
		now: Date.now(),
		hookId: checked.hookId,
		wasInterrupted: checked.read?.status.status === 'interrupted',
		// The schema says a number, not its unit: seconds are taken for milliseconds below 10^12 (the year 2001 in ms).
		lastEvaluatedAt: delivering && typeof status.last_evaluated_at === 'number' ? (status.last_evaluated_at < 1e12 ? status.last_evaluated_at * 1000 : status.last_evaluated_at) : undefined,
		lastEvaluatedHeight: typeof status.last_evaluated_block_height === 'number' ? status.last_evaluated_block_height : null,
		stallMinutes: settings.stallMinutes,
		gaps,
	});
	memory.state.alerts = state;
	report(ctx, state, began, ended, before);
	return { outcome: checked.outcome, gaps };
}

/** A hook's counts as read (gaps/plan.ts); undefined when the service left one out. */
function countsOf(hook: Hook): Counts | undefined {
	const { occurrence_count: occurrences, evaluated_block_count: evaluated } = hook.status as Record<string, unknown>;
	return typeof occurrences === 'number' && typeof evaluated === 'number' ? { occurrences, evaluated } : undefined;
}

async function checkNow(ctx: ITriggerFunctions, params: HookParameters, given?: Connection): Promise<Checked> {
	const connection = given ?? (await backgroundConnection(ctx));
	const known = stored(ctx) ?? (await foundByUrl(ctx, connection));
	if (!known) return { outcome: 'nothing-to-check' };
	let hook: Hook | undefined;
	try {
		hook = await getHook(ctx, known.hookId, { connection });
	} catch (error) {
		if (!isNotFound(error)) throw asNodeError(ctx.getNode(), error);
	}
	if (hook) {
		const readAt = Date.now();
		if (!whyNotDelivering(hook)) return { outcome: 'healthy', connection, read: hook, readAt, hookId: hook.uuid };
		await ensureDelivering(ctx, hook, connection, 'by the health check');
		return { outcome: 'enabled', connection, read: hook, readAt, hookId: hook.uuid };
	}
	const adopted = await keepOneOf(ctx, known.webhookUrl, desiredDefinition(ctx, connection, known.webhookUrl, params), connection);
	if (adopted) {
		remember(ctx, { hookId: adopted.uuid, webhookUrl: known.webhookUrl });
		await ensureDelivering(ctx, adopted, connection, 'by the health check');
		logHealed(ctx, `hook ${known.hookId} had been deleted at the service; took over hook ${adopted.uuid}, which posts to the same URL`);
		return { outcome: 'registered', connection, hookId: adopted.uuid };
	}
	const again = await registerEnabled(ctx, known.webhookUrl, connection, params);
	logHealed(ctx, `hook ${known.hookId} had been deleted at the service; registered it again as ${again.uuid}`);
	return { outcome: 'registered', connection, hookId: again.uuid };
}

interface LoopState {
	closed: boolean;
	failing: boolean;
	/** Why the last check could not know what n8n received, once said in the log. */
	blind?: string;
	/** Why the last check could not reach the trigger's webhook, and counted what this process took itself, once said. */
	unreachable?: string;
}

/** What the gap step did, in n8n's log: each finding (logged by the step), a replay that stopped, and once, why it could not see. */
function reportGaps(ctx: ITriggerFunctions, gaps: GapOutcome | undefined, state: LoopState): void {
	if (!gaps) return;
	const workflow = ctx.getWorkflow();
	const where = `Stacks Hooks Trigger "${ctx.getNode().name}" of workflow "${workflow.name ?? ''}" (${workflow.id ?? ''})`;
	const meta = { workflowId: workflow.id, nodeName: ctx.getNode().name };
	if (gaps.blind && !state.blind) {
		ctx.logger.warn(
			`${where}: cannot tell which blocks reached the workflow: ${gaps.blind} (${gaps.callError ?? 'no answer'}), and this n8n process has taken none of the hook's deliveries since it started. A hook that stops is still brought back and what it missed replayed; a match lost otherwise is not found. In queue mode, set the trigger's Internal Webhook Address to where this main process reaches the webhook processes.`,
			meta,
		);
	}
	state.blind = gaps.blind;
	if (gaps.unreachable && !state.unreachable) {
		ctx.logger.info(
			`${where}: ${gaps.unreachable} (${gaps.callError ?? 'no answer'}). The health check counts what this n8n process took itself, which is every delivery when it runs alone (regular mode); it keeps that in memory, so after a restart of n8n it judges only what came since. Set the trigger's Internal Webhook Address to an address n8n reaches itself at to keep it across restarts.`,
			meta,
		);
	}
	state.unreachable = gaps.unreachable;
	if (gaps.replayError) ctx.logger.warn(`${where}: the replay of missed blocks stopped (${gaps.replayError}); ${gaps.left} height(s) are left and are tried again at the next check.`, meta);
	if (gaps.overLimit) {
		const [from, to] = gaps.overLimit;
		ctx.logger.warn(`${where}: heights ${from}-${to} may have been missed and are over the Catch-Up Limit: they are not replayed. Backfill them with the Stacks Hooks node (Hook > Backfill).`, meta);
	}
}

/** The production webhook URL's path: n8n's `<base>/webhook/<webhookId>/<path>` for this node. */
const productionPath = (ctx: ITriggerFunctions) => `/webhook/${ctx.getNode().webhookId ?? ''}/webhook`;

/**
 * The hook when the static data does not name it: n8n was killed after registering it and before saving the
 * static data, and n8n 2.x does not run the activation again for a workflow it had published. The hooks of the
 * account posting to this node's production URL (its webhookId is in the path) are the node's own; the first
 * is taken as kept (the check then enables it, or registers it again), the others are left to keepOneOf.
 */
async function foundByUrl(ctx: ITriggerFunctions, connection: Connection): Promise<StoredHook | undefined> {
	if (!ctx.getNode().webhookId) return undefined;
	const path = productionPath(ctx);
	const hook = (await listHooks(ctx, { connection })).find((candidate) => candidate.definition.action.url?.endsWith(path));
	if (!hook?.definition.action.url) return undefined;
	const found = { hookId: hook.uuid, webhookUrl: hook.definition.action.url };
	remember(ctx, found);
	logHealed(ctx, `no hook was kept for this workflow (n8n stopped while activating it); took over hook ${hook.uuid}, which posts to its URL`);
	return found;
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
				const workflow = ctx.getWorkflow();
				ctx.logger.warn(
					`Stacks Hooks Trigger "${ctx.getNode().name}" of workflow "${workflow.name ?? ''}" (${workflow.id ?? ''}): the health check did not complete: ${(error as Error).message}. It tries again every ${minutes} min; this is logged once until a check completes.`,
					{ workflowId: workflow.id, nodeName: ctx.getNode().name },
				);
			}
			state.failing = true;
			return undefined;
		}
	};

	const { atStartup } = settings;
	// Spread over half a minute, so that many workflows do not call at once; at once when no hook is kept (see foundByUrl).
	const startupDelay = stored(ctx) ? STARTUP_DELAY_MS.min + Math.random() * (STARTUP_DELAY_MS.max - STARTUP_DELAY_MS.min) : BUSY_RETRY_MS;
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
