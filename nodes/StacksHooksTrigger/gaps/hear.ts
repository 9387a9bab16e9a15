/**
 * Step 1 of a health check (hook/healthCheck.ts): what n8n's processes took of the hook, heard before
 * the check reads the hook. The plan then knows that every block it counts was evaluated before that
 * read (plan.ts), and a block still on its way is only late, not missing.
 *
 * Heard through the trigger's own webhook, every process behind a load balancer (ownWebhook.ts), else
 * from this process's own notes, else not at all (the check is blind).
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import type { Connection } from '../../shared/transport/connection';
import { stored } from '../hook/keptHook';
import type { CheckState } from './checkState';
import { exchange, type Heard } from './ownWebhook';

/** What n8n took; undefined when no hook is kept yet (n8n killed while activating: the repair finds it, then the check hears). */
export async function hear(ctx: ITriggerFunctions, connection: Connection, memory: CheckState, internalAddress: string): Promise<Heard | undefined> {
	if (!stored(ctx)) return undefined;
	return await exchange(ctx, connection, memory, internalAddress, true);
}
