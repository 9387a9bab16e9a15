/**
 * The health check's state in the process that runs it (the main, or the leader of several): the gap
 * state (../planning/gapState.ts) as the last check left it, begun from what the static data kept, and the consumer
 * secret it calls the trigger's webhook with.
 *
 * Also read by webhook() in the same process (received.ts): in regular mode the process that takes the
 * deliveries is the one that runs the check, so which heights the check is replaying is known here,
 * in memory, without the static data (which only a call to the trigger's own webhook brings up to date,
 * and which n8n may not be able to make: ownWebhook.ts).
 */
import type { IHookFunctions, ITriggerFunctions } from 'n8n-workflow';

import type { Hook } from '../../../shared/schemas';
import { nodeKey, Slot } from '../../nodeMemory';
import { emptyState, type GapState, isGapState } from '../planning/gapState';

export interface CheckState {
	state: GapState;
	secret?: string;
	/** Begun empty (the static data kept no gap state), and no check has planned since: see ../planning/gapState.ts, `lifeUnknown`. */
	unplanned?: boolean;
	/** Where the trigger's webhook answered the last call (ownWebhook.ts): tried first at the next. */
	via?: string;
}

const states = new Slot<CheckState>('health check state');

/** The gap state as n8n loaded it with the workflow (kept by the last check that reached the trigger's webhook). */
function keptGapState(ctx: ITriggerFunctions): GapState | undefined {
	const value = ctx.getWorkflowStaticData('node').gaps;
	return isGapState(value) ? value : undefined;
}

/** The node's check state in this process, begun from what the static data kept. */
export function checkState(ctx: ITriggerFunctions): CheckState {
	const key = nodeKey(ctx);
	let kept = states.get(key);
	if (!kept) {
		const state = keptGapState(ctx);
		kept = state ? { state } : { state: emptyState(), unplanned: true };
		states.set(key, kept);
	}
	return kept;
}

/**
 * When n8n closes the trigger: the check's state goes with it. The next trigger() of the node begins again
 * from what the static data kept, as it does after a restart.
 */
export function forgetCheckState(ctx: ITriggerFunctions): void {
	states.delete(nodeKey(ctx));
}

/** The gap state of the check this process runs for the node (nodeKey), if it runs one. */
export function runningGapState(key: string): GapState | undefined {
	return states.get(key)?.state;
}

/**
 * Hooks that activation brought back, as read then, per node: one found gone (deleted while n8n was down) and replaced,
 * or, on a user's activation or with the health checks off, one found stopped (interrupted, disabled) and enabled. The
 * check must still replay what it missed (../planning/gapPlan.ts: a repair), from the service's record of where it stopped. (At n8n's
 * start, with checks on, a stopped hook is left to the first check, ../../hook/lifecycle.ts: its status is the record.) Same
 * process: activation and trigger() both run on the main (the leader of several). In memory only: n8n saves the static
 * data after the activation, but nothing trigger() writes, so a note kept there could not be told taken from not taken
 * at the next start; a restart before the first check forgets it (README, Nothing missed: a hook deleted while n8n was
 * down, then a crash loop).
 */
const stoppedAtActivation = new Slot<Hook>('hook stopped at activation');

export function noteStoppedAtActivation(ctx: IHookFunctions, hook: Hook): void {
	if (ctx.getMode() === 'manual') return;
	// An earlier stop of the same hook not yet taken by a check: the gap begins there.
	const key = nodeKey(ctx);
	if (stoppedAtActivation.get(key)?.uuid !== hook.uuid) stoppedAtActivation.set(key, hook);
}

/** The status of hook `hookId` where activation found it stopped, once; undefined when it did not (or found another hook). */
export function takeStoppedAtActivation(ctx: ITriggerFunctions, hookId: string): Hook['status'] | undefined {
	const hook = stoppedAtActivation.take(nodeKey(ctx));
	return hook?.uuid === hookId ? hook.status : undefined;
}

/**
 * Nodes whose hook activation left stopped for the first check (../../hook/lifecycle.ts), which then comes at the start-up delay's
 * shortest rather than spread over it (../run.ts). A hint only: without it the check still comes, seconds later.
 */
const leftStopped = new Slot<true>('hook left stopped for the first check');

export function noteLeftStopped(ctx: IHookFunctions): void {
	leftStopped.set(nodeKey(ctx), true);
}

/** Whether activation left this node's hook stopped for the first check; said once. */
export function takeLeftStopped(ctx: ITriggerFunctions): boolean {
	return leftStopped.delete(nodeKey(ctx));
}
