/**
 * When the health checks run, read in one place: the Health Check Interval option and whether n8n
 * is starting. By trigger() for its schedule (../healthCheck/run.ts), and by activation, which leaves a
 * stopped hook to the first check only at n8n's start with checks on (lifecycle.ts).
 */
import type { HookOwner } from './keptHook';

export const DEFAULT_HEALTH_CHECK_MINUTES = 5;

/** The interval between health checks; not a positive number when they are turned off. */
export function healthCheckMs(ctx: HookOwner): number {
	return (ctx.getNodeParameter('options.healthCheckMinutes', DEFAULT_HEALTH_CHECK_MINUTES) as number) * 60_000;
}

/** n8n runs the node at its own start (or a new leader's), not on a user's activation. */
export function atStartup(ctx: HookOwner): boolean {
	return ['init', 'leadershipChange'].includes(ctx.getActivationMode());
}
