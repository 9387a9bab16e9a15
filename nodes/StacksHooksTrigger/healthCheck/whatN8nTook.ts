/**
 * Step 1 of a health check (run.ts): what n8n's processes took of the hook, heard before the check
 * reads the hook. The plan then knows that every block it counts was evaluated before that read
 * (planning/gapPlan.ts), and a block still on its way is only late, not missing.
 *
 * Heard through the trigger's own webhook, every process behind a load balancer (channel/ownWebhook.ts),
 * else from this process's own notes, else not at all (the check is blind).
 */
import type { StoredHook } from '../hook/keptHook';
import type { Check } from './check';
import { exchange, type Heard } from './channel/ownWebhook';

/** What n8n took of the hook `kept`; undefined when none is kept yet (n8n killed while activating: the repair finds it, then the check hears). */
export async function whatN8nTook(check: Check, kept: StoredHook | undefined): Promise<Heard | undefined> {
	if (!kept) return undefined;
	return await exchange(check, kept, 'gather');
}
