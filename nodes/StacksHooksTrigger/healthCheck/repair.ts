/**
 * Step 2 of a health check (run.ts): the hook read once, and brought back if it stopped. run.ts runs it in
 * the node's turn (../turns.ts): activation and deactivation wait for it, and a check skips it while they run.
 * How each kind of stop is mended:
 * - disabled at the service, or `interrupted` by the service after failed deliveries (enabled stays
 *   true): one PATCH .../enabled {enabled: true} resumes it;
 * - deleted (by hand, or by any other client): the hook posting to this node's URL is adopted if one
 *   exists, else it is registered again;
 * - none kept (n8n killed after registering and before saving the static data): found by its URL.
 * Each repair is said once in n8n's log (report.ts), with what was done and why. A hook that activation
 * found stopped and enabled again (n8n's start after an outage) counts as repaired by this check: what
 * it missed is still to be replayed.
 */
import { remember, type StoredHook } from '../hook/keptHook';
import { enableIfStopped, replaceDeleted } from '../hook/lifecycle';
import type { Check, Checked } from './check';
import { takeStoppedAtActivation } from '../hook/activationNotes';

/** The hook read, and repaired if it stopped. The caller holds the node's turn. */
export async function repair(check: Check): Promise<Checked> {
	const checked = await checkNow(check);
	if (!checked.kept) return checked;
	// Brought back by activation (n8n's start after an outage) rather than by a check: a repair all the same.
	const atActivation = takeStoppedAtActivation(check.ctx, checked.kept.hookId);
	const byActivation = checked.outcome === 'healthy' && atActivation !== undefined;
	const repaired = checked.outcome === 'enabled' || checked.outcome === 'registered' || byActivation;
	// Enabled again, the same hook goes on from its counts as read; one registered or taken over, from counts not kept.
	const goesOnFrom = checked.outcome === 'enabled' ? checked.read?.status : byActivation ? atActivation : undefined;
	const { occurrence_count: occurrences, evaluated_block_count: evaluated } = goesOnFrom ?? {};
	return {
		...checked,
		repaired,
		// The service's record of where it stopped: activation's, the first, when both it and this check found it stopped.
		...(repaired && { stoppedAt: atActivation ?? checked.read?.status, ...(atActivation && { stoppedByActivation: true }) }),
		counted: byActivation ? atActivation : checked.read?.status,
		// (The service may leave a count out.)
		resumedFrom: typeof occurrences === 'number' && typeof evaluated === 'number' ? { occurrences, evaluated } : undefined,
	};
}

async function checkNow(check: Check): Promise<Checked> {
	const { ctx, service } = check;
	// Deactivated meanwhile: its hook is gone on purpose, and must not be registered again.
	if (!check.stillOpen()) return { outcome: 'busy' };
	const healed: string[] = [];
	const known = check.kept ?? (await foundByUrl(check, healed));
	if (!known) return { outcome: 'nothing-to-check' };
	const hook = await service.read(known.hookId);
	if (hook) {
		const readAt = Date.now();
		const why = await enableIfStopped(service, hook);
		if (why) healed.push(`enabled hook ${hook.uuid} again by the health check: ${why}`);
		return { outcome: why ? 'enabled' : 'healthy', read: hook, readAt, kept: known, healed };
	}
	// Deleted: the hook posting to the same URL with the wanted definition is adopted, else one is registered again.
	const replaced = await replaceDeleted(ctx, service, known, check.params);
	const { uuid } = replaced.hook;
	if (replaced.enabledBecause) healed.push(`enabled hook ${uuid} again by the health check: ${replaced.enabledBecause}`);
	healed.push(
		replaced.adopted
			? `hook ${known.hookId} had been deleted at the service; took over hook ${uuid}, which posts to the same URL`
			: `hook ${known.hookId} had been deleted at the service; registered it again as ${uuid}`,
	);
	return { outcome: 'registered', kept: { hookId: uuid, webhookUrl: known.webhookUrl }, healed };
}

/**
 * The hook when the static data does not name it: n8n was killed after registering it and before saving the
 * static data, and n8n 2.x does not run the activation again for a workflow it had published. The hooks of the
 * account posting to this node's production URL (its webhookId is in the path: n8n's `<base>/webhook/<webhookId>/<path>`)
 * are the node's own; the first is taken as kept (the check then enables it, or registers it again), the others are
 * left to keepOneOf.
 */
async function foundByUrl(check: Check, healed: string[]): Promise<StoredHook | undefined> {
	const { webhookId } = check.ctx.getNode();
	if (!webhookId) return undefined;
	const [hook] = await check.service.postingTo({ path: `/webhook/${webhookId}/webhook` });
	if (!hook?.definition.action.url) return undefined;
	const found = { hookId: hook.uuid, webhookUrl: hook.definition.action.url };
	remember(check.ctx, found);
	healed.push(`no hook was kept for this workflow (n8n stopped while activating it); took over hook ${hook.uuid}, which posts to its URL`);
	return found;
}
