/**
 * The trigger's Health Check Interval option, read in one place: by trigger() for its schedule
 * (healthCheck.ts), and by activation, which leaves a stopped hook to the first check only when
 * checks run (lifecycle.ts).
 */
import type { HookOwner } from './keptHook';

export const DEFAULT_HEALTH_CHECK_MINUTES = 5;

/** The interval between health checks; not a positive number when they are turned off. */
export function healthCheckMs(ctx: HookOwner): number {
	return (ctx.getNodeParameter('options.healthCheckMinutes', DEFAULT_HEALTH_CHECK_MINUTES) as number) * 60_000;
}
