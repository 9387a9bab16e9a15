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
import { sleep } from 'n8n-workflow';

import { getHook } from '../../shared/api/hookEndpoints';
import type { Hook } from '../../shared/schemas';
import { backgroundConnection } from '../../shared/transport/connection';
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
	whyNotDelivering,
} from './lifecycle';
import { ifFree } from './turns';

export const DEFAULT_HEALTH_CHECK_MINUTES = 5;
/** After n8n starts: soon, spread so that many workflows do not all call at once. */
const STARTUP_DELAY_MS = { min: 5_000, max: 35_000 };
/** When activation or deactivation holds the node's turn, the check waits this long and tries again. */
const BUSY_RETRY_MS = 2_000;

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

/** One health check of the production hook. Throws when the service cannot be asked or refuses a repair. */
export async function checkHookHealth(ctx: ITriggerFunctions, params = hookParameters(ctx)): Promise<HealthCheckOutcome> {
	return (await ifFree(ctx, async () => await checkNow(ctx, params))) ?? 'busy';
}

async function checkNow(ctx: ITriggerFunctions, params: HookParameters): Promise<HealthCheckOutcome> {
	const known = stored(ctx);
	if (!known) return 'nothing-to-check';
	const connection = await backgroundConnection(ctx);
	let hook: Hook | undefined;
	try {
		hook = await getHook(ctx, known.hookId, { connection });
	} catch (error) {
		if (!isNotFound(error)) throw asNodeError(ctx.getNode(), error);
	}
	if (hook) {
		if (!whyNotDelivering(hook)) return 'healthy';
		await ensureDelivering(ctx, hook, connection, 'by the health check');
		return 'enabled';
	}
	const adopted = await keepOneOf(ctx, known.webhookUrl, desiredDefinition(ctx, connection, known.webhookUrl, params), connection);
	if (adopted) {
		remember(ctx, { hookId: adopted.uuid, webhookUrl: known.webhookUrl });
		await ensureDelivering(ctx, adopted, connection, 'by the health check');
		logHealed(ctx, `hook ${known.hookId} had been deleted at the service; took over hook ${adopted.uuid}, which posts to the same URL`);
		return 'registered';
	}
	const again = await registerEnabled(ctx, known.webhookUrl, connection, params);
	logHealed(ctx, `hook ${known.hookId} had been deleted at the service; registered it again as ${again.uuid}`);
	return 'registered';
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
	const minutes = ctx.getNodeParameter('options.healthCheckMinutes', DEFAULT_HEALTH_CHECK_MINUTES) as number;
	if (!(minutes > 0)) return {};
	const intervalMs = minutes * 60_000;
	const params = hookParameters(ctx);
	const state = { closed: false, failing: false };

	const pause = async (ms: number): Promise<void> => {
		for (const until = Date.now() + ms; !state.closed && Date.now() < until; ) await sleep(Math.min(CLOSE_POLL_MS, until - Date.now()));
	};

	const checkOnce = async (): Promise<HealthCheckOutcome | undefined> => {
		try {
			const outcome = await checkHookHealth(ctx, params);
			if (state.failing) ctx.logger.info(`Stacks Hooks Trigger "${ctx.getNode().name}": the health check reaches the service again`);
			state.failing = false;
			return outcome;
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

	const atStartup = ['init', 'leadershipChange'].includes(ctx.getActivationMode());
	const startupDelay = STARTUP_DELAY_MS.min + Math.random() * (STARTUP_DELAY_MS.max - STARTUP_DELAY_MS.min);
	void (async () => {
		await pause(Math.min(atStartup ? startupDelay : Infinity, spread(intervalMs)));
		while (!state.closed) {
			const outcome = await checkOnce();
			await pause(outcome === 'busy' ? BUSY_RETRY_MS : spread(intervalMs));
		}
	})();
	return {
		closeFunction: async () => {
			state.closed = true;
		},
	};
}
