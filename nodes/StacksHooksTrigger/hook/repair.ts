/**
 * Step 2 of a health check (healthCheck.ts): the hook read once, and brought back if it stopped, in the
 * node's turn (turns.ts: activation and deactivation wait for it, and it skips a check while they run):
 * - disabled at the service, or `interrupted` by the service after failed deliveries (enabled stays
 *   true): one PATCH .../enabled {enabled: true} resumes it;
 * - deleted (by hand, or by any other client): the hook posting to this node's URL is adopted if one
 *   exists, else it is registered again;
 * - none kept (n8n killed after registering and before saving the static data): found by its URL.
 * Each repair is logged once, at info level, with what was done and why. A hook that activation found
 * stopped and enabled again (n8n's start after an outage) counts as repaired by this check: what it
 * missed is still to be replayed.
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import { getHook, listHooks } from '../../shared/api/hookEndpoints';
import type { Hook } from '../../shared/schemas';
import { backgroundConnection, type Connection } from '../../shared/transport/connection';
import { asNodeError, isNotFound } from '../../shared/transport/errors';
import { takeStoppedAtActivation } from '../gaps/checkState';
import type { Counts } from '../gaps/plan';
import { remember, stored, type StoredHook } from './keptHook';
import { desiredDefinition, ensureDelivering, type HookParameters, hookParameters, keepOneOf, registerEnabled, whyNotDelivering } from './lifecycle';
import { logHealed } from './log';
import { ifFree } from './turns';

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

/** What the check found and did to the hook. */
export interface Checked {
	outcome: HealthCheckOutcome;
	connection?: Connection;
	/** The hook as read, before any repair; undefined when it had been deleted. */
	read?: Hook;
	readAt?: number;
	/** The hook that delivers after the check. */
	hookId?: string;
	/** Stopped and brought back, by this check or by the activation before it (gaps/plan.ts: a repair). */
	repaired?: boolean;
	/** The hook's status the gaps are counted from: as read, or as activation found it stopped. */
	counted?: Hook['status'];
	/** With `repaired`: the hook's status where the service stopped delivering, as read before it was brought back (none when it had been deleted). */
	stoppedAt?: Hook['status'];
	/** `stoppedAt` is activation's record (the first stop, when this check found the hook stopped again). */
	stoppedByActivation?: boolean;
	/** With `repaired`: the counts the same hook goes on from (enabled again); undefined for one registered or taken over. */
	resumedFrom?: Counts;
}

/** One health check of the production hook, the gaps left out. Throws when the service cannot be asked or refuses a repair. */
export async function checkHookHealth(ctx: ITriggerFunctions, params = hookParameters(ctx)): Promise<HealthCheckOutcome> {
	return (await checkInTurn(ctx, params)).outcome;
}

/** The hook read, and repaired if it stopped; 'busy' when activation or deactivation holds the node's turn. */
export async function repairHook(ctx: ITriggerFunctions, params: HookParameters, connection: Connection): Promise<Checked> {
	const checked = await checkInTurn(ctx, params, connection);
	if (!checked.hookId) return checked;
	// Brought back by activation (n8n's start after an outage) rather than by a check: a repair all the same.
	const atActivation = takeStoppedAtActivation(ctx, checked.hookId);
	const byActivation = checked.outcome === 'healthy' && atActivation !== undefined;
	const repaired = checked.outcome === 'enabled' || checked.outcome === 'registered' || byActivation;
	return {
		...checked,
		repaired,
		// The service's record of where it stopped: activation's, the first, when both it and this check found it stopped.
		...(repaired && { stoppedAt: atActivation ?? checked.read?.status, ...(atActivation && { stoppedByActivation: true }) }),
		counted: byActivation ? atActivation : checked.read?.status,
		// Enabled again, the same hook goes on from its counts as read; one registered or taken over, from counts not kept.
		resumedFrom: checked.outcome === 'enabled' && checked.read ? countsOf(checked.read.status) : byActivation ? countsOf(atActivation) : undefined,
	};
}

async function checkInTurn(ctx: ITriggerFunctions, params: HookParameters, connection?: Connection): Promise<Checked> {
	return (await ifFree(ctx, async () => await checkNow(ctx, params, connection))) ?? { outcome: 'busy' };
}

/** A hook's counts as read (gaps/plan.ts); undefined when the service left one out. */
function countsOf(status: Hook['status']): Counts | undefined {
	const { occurrence_count: occurrences, evaluated_block_count: evaluated } = status as Record<string, unknown>;
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
