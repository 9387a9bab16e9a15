/**
 * What activation (checkExists, create) notes for the health check that follows it, per node, in this
 * process: a hook it found gone or stopped and brought back, whose missed blocks the check must replay.
 * Activation and trigger() both run on the main process (the leader of several).
 */
import type { IHookFunctions, ITriggerFunctions } from 'n8n-workflow';

import type { Hook } from '../../shared/schemas';
import { nodeKey, Slot } from '../nodeMemory';

/** Nodes whose kept hook activation found gone at the service, until a new one (registered or adopted) replaces it. */
const goneAtActivation = new Slot<true>('hook gone at activation');

/** Activation found the node's kept hook gone at the service. */
export function noteGoneAtActivation(ctx: IHookFunctions): void {
	goneAtActivation.set(nodeKey(ctx), true);
}

/** Activation found or made the hook that replaces one it found gone: the check replays what was missed meanwhile. */
export function noteReplacedAtActivation(ctx: IHookFunctions, hook: Hook): void {
	if (goneAtActivation.delete(nodeKey(ctx))) noteStoppedAtActivation(ctx, hook);
}

/**
 * Hooks that activation brought back, as read then, per node: one found gone (deleted while n8n was down) and replaced,
 * or, on a user's activation or with the health checks off, one found stopped (interrupted, disabled) and enabled. The
 * check must still replay what it missed (../healthCheck/planning/gapPlan.ts: a repair), from the service's record of where it stopped. (At n8n's
 * start, with checks on, a stopped hook is left to the first check, lifecycle.ts: its status is the record.) Same
 * process: activation and trigger() both run on the main (the leader of several). In memory only: n8n saves the static
 * data after the activation, but nothing trigger() writes, so a note kept there could not be told taken from not taken
 * at the next start; a restart before the first check forgets it (docs/nothing-missed.md: a hook deleted while n8n was
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
	const key = nodeKey(ctx);
	const hook = stoppedAtActivation.get(key);
	stoppedAtActivation.delete(key);
	return hook?.uuid === hookId ? hook.status : undefined;
}

/**
 * Nodes whose hook activation left stopped for the first check (lifecycle.ts), which then comes at the start-up delay's
 * shortest rather than spread over it (../healthCheck/run.ts). A hint only: without it the check still comes, seconds later.
 */
const leftStopped = new Slot<true>('hook left stopped for the first check');

export function noteLeftStopped(ctx: IHookFunctions): void {
	leftStopped.set(nodeKey(ctx), true);
}

/** Whether activation left this node's hook stopped for the first check; said once. */
export function takeLeftStopped(ctx: ITriggerFunctions): boolean {
	return leftStopped.delete(nodeKey(ctx));
}
