/**
 * One health check as an object: what every step needs (`Check`, made once per check by `openCheck`),
 * and what each step hands on to the next. Step 2 turns the check into a `Hooked` one, with the hook
 * that delivers now: the steps after it take only that, so none can run without a hook.
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import { HooksClient } from '../../shared/api/client';
import type { Hook } from '../../shared/schemas';
import { atStartup, healthCheckMs } from '../hook/checkInterval';
import { stored, type StoredHook } from '../hook/keptHook';
import { type HookParameters, hookParameters } from '../hook/lifecycle';
import { type LogMeta, whereInLog } from '../hook/log';
import { nodeKey } from '../nodeMemory';
import { checkState, type CheckState, isCurrent } from './channel/checkState';
import type { Counts } from './planning/gapState';
import { DEFAULT_STALL_MINUTES } from './planning/incidents';
import type { Scheduled } from './planning/schedule';
import type { Heard } from './channel/ownWebhook';

/** The default Catch-Up Limit: the most heights the trigger replays for one gap by itself. */
export const DEFAULT_CATCH_UP_LIMIT = 2_000;

/** The node's options the checks use. */
export interface CheckSettings {
	catchUpLimit: number;
	stallMinutes: number;
	intervalMs: number;
	/** Where the check calls the trigger's webhook instead of the production URL; empty: that URL. */
	internalAddress: string;
	/** n8n runs this trigger at its own start (or a new leader's), not on an activation. */
	atStartup: boolean;
}

/** What the health check has said in n8n's log, once, until it changes (report.ts). */
export interface LoggedOnce {
	failing: boolean;
	/** Why the last check could not know what n8n received. */
	blind?: string;
	/** Why the last check could not reach the trigger's webhook, and counted what this process took itself. */
	unreachable?: string;
	/** Where the check last heard its webhook where this process takes deliveries. */
	nearby?: string;
}

/**
 * What the checks of one trigger() share, read when n8n runs it: the checks later run outside any run, where
 * expressions cannot be evaluated.
 */
export interface Run {
	ctx: ITriggerFunctions;
	/** Who says it, in n8n's log: the node and its workflow (../hook/log.ts), and the metadata kept beside it. */
	where: string;
	meta: LogMeta;
	params: HookParameters;
	settings: CheckSettings;
	loggedOnce: LoggedOnce;
	/** The checks' state in this process (channel/checkState.ts). */
	memory: CheckState;
	/**
	 * False once n8n closed the trigger or the workflow was deactivated: a repair is then skipped, a replay stops
	 * between two heights, and no check follows.
	 */
	stillOpen: () => boolean;
}

/** What every step of one check needs. */
export interface Check extends Run {
	/** The service, through the connection read for this check (the credential as n8n keeps it now). */
	service: HooksClient;
	/** The hook the static data named when the check began: none when n8n was killed while activating. */
	kept?: StoredHook;
}

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

/** Step 2's finding: what the check found and did to the hook. */
export interface Checked {
	outcome: HealthCheckOutcome;
	/** The hook as read, before any repair; undefined when it had been deleted. */
	read?: Hook;
	readAt?: number;
	/** The hook that delivers after the check, as kept in the static data (its UUID and the URL it posts to). */
	kept?: StoredHook;
	/** What was healed, and why: one line each in n8n's log (report.ts). */
	healed?: string[];
	/** Stopped and brought back, by this check or by the activation before it (planning/gapPlan.ts: a repair). */
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

/** A check past step 2, with the hook that delivers now. */
export interface Hooked extends Check {
	hook: Checked & { kept: StoredHook };
}

/** Step 3's finding: which heights may be missing, and which to replay now (planning/gapPlan.ts, planning/schedule.ts). */
export type GapPlan = Scheduled & {
	/** When the hook was read: the window this check closed closed then. */
	readAt: number;
	/** Held (the workflow keeps failing on a delivery): nothing replayed, and nothing left waits on a soon check. */
	hold: boolean;
};

/** Step 4's finding: what was replayed. */
export interface Replayed {
	replayed: number;
	/** Heights ready to replay and not replayed yet (the next check comes soon); those near the tip wait apart. */
	left: number;
	/** The window just closed is still short a moment later: the next check had better come soon. */
	soon?: true;
	/** The replay stopped on an error (the service refused or could not be reached); what it said. */
	replayError?: string;
}

/** What the gap steps (1, 3 and 4) found, for the hook that delivers now. */
export interface GapFindings {
	hooked: Hooked;
	heard: Heard;
	plan: GapPlan;
	replayed: Replayed;
}

function option(ctx: ITriggerFunctions, name: string, fallback: number): number {
	const value = ctx.getNodeParameter(`options.${name}`, fallback) as number;
	return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** The node's options the checks use, read when n8n runs trigger(). */
export function readSettings(ctx: ITriggerFunctions): CheckSettings {
	return {
		catchUpLimit: option(ctx, 'catchUpLimit', DEFAULT_CATCH_UP_LIMIT),
		stallMinutes: option(ctx, 'stallMinutes', DEFAULT_STALL_MINUTES),
		// As given: a value that is not a positive number turns the checks off (run.ts).
		intervalMs: healthCheckMs(ctx),
		internalAddress: String(ctx.getNodeParameter('options.internalWebhookAddress', '') ?? ''),
		atStartup: atStartup(ctx),
	};
}

/** What the checks of this trigger() share. */
export function openRun(ctx: ITriggerFunctions, closed: () => boolean = () => false): Run {
	const settings = readSettings(ctx);
	const memory = checkState(ctx);
	// The node's key once: the loop asks each second, and each getNode() copies the whole node.
	const key = nodeKey(ctx);
	const stillOpen = () => !closed() && isCurrent(key, memory);
	return { ctx, settings, ...whereInLog(ctx), params: hookParameters(ctx), loggedOnce: { failing: false }, memory, stillOpen };
}

/** One check: the service through the credential as n8n keeps it now, the check's memory in this process, the hook kept. */
export async function openCheck(run: Run): Promise<Check> {
	const kept = stored(run.ctx);
	return { ...run, service: await HooksClient.connect(run.ctx, { background: true }), ...(kept && { kept }) };
}
