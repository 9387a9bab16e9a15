/**
 * The health check's state in the process that runs it (the main, or the leader of several): the gap
 * state (plan.ts) as the last check left it, begun from what the static data kept, and the consumer
 * secret it calls the trigger's webhook with.
 *
 * Also read by webhook() in the same process (received.ts): in regular mode the process that takes the
 * deliveries is the one that runs the check, so which heights the check is replaying is known here,
 * in memory, without the static data (which only a call to the trigger's own webhook brings up to date,
 * and which n8n may not be able to make: ownWebhook.ts).
 */
import type { IDataObject, IHookFunctions, ITriggerFunctions } from 'n8n-workflow';

import type { Hook } from '../../shared/schemas';

import { nodeKey } from '../nodeKey';
import { emptyState, type GapState, isGapState } from './plan';

export interface CheckState {
	state: GapState;
	secret?: string;
	/** Begun empty (the static data kept no gap state), and no check has planned since: see plan.ts, `lifeUnknown`. */
	unplanned?: boolean;
	/** Begun from the gap state the static data kept, and no check has planned since: see plan.ts, `restored`. */
	restored?: boolean;
}

const states = new Map<string, CheckState>();

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
		kept = state ? { state, restored: true } : { state: emptyState(), unplanned: true };
		states.set(key, kept);
	}
	return kept;
}

/** The gap state of the check this process runs for the node (nodeKey), if it runs one. */
export function runningGapState(key: string): GapState | undefined {
	return states.get(key)?.state;
}

/**
 * A hook that activation found stopped (interrupted, disabled) and enabled again, as read then: n8n activates a workflow
 * at its start too, so after an outage it is activation, not the health check, that brings the hook back, and the check
 * must still replay what it missed (plan.ts: a repair), from the service's record of where it stopped.
 *
 * Kept in the static data, where n8n saves it once the activation's webhooks are added (active-workflow-manager.js,
 * `addWebhooks`: `saveStaticData(workflow)`), and where trigger() finds it: n8n hands both the one workflow it loaded.
 * So a restart before the first check after an activation (a crash loop, an upgrade retried) still finds it. Until a
 * check has taken it into its state and that state is kept (`forgetHandledStop`), a later activation that finds the hook
 * stopped again keeps the first stop's record: the gap begins there.
 */
export interface StopNote {
	hookId: string;
	/** The hook's status fields as read before it was enabled again. */
	status: Hook['status'];
}

const STOP_KEY = 'stoppedAtActivation';

function stopNoteIn(data: IDataObject): StopNote | undefined {
	const note = data[STOP_KEY] as Partial<StopNote> | undefined;
	return note && typeof note.hookId === 'string' && typeof note.status === 'object' && note.status !== null ? (note as StopNote) : undefined;
}

const evaluatedOf = (status: Hook['status']) => (typeof status.evaluated_block_count === 'number' ? status.evaluated_block_count : 0);

export function noteStoppedAtActivation(ctx: IHookFunctions, hook: Hook): void {
	if (ctx.getMode() === 'manual') return;
	const data = ctx.getWorkflowStaticData('node');
	// An earlier stop not yet taken by a kept check state: the gap begins there, whatever hook delivers now.
	if (stopNoteIn(data)) return;
	data[STOP_KEY] = { hookId: hook.uuid, status: { ...hook.status } } as unknown as IDataObject;
}

/** The hook's status where activation found it stopped, once per stop; undefined when it did not. */
export function takeStoppedAtActivation(ctx: ITriggerFunctions, memory: CheckState): Hook['status'] | undefined {
	const note = stopNoteIn(ctx.getWorkflowStaticData('node'));
	// (Noted for a hook since replaced, gone again at the next start: the stop is the same, whatever hook delivers now.)
	if (!note || handles(memory.state, note)) return undefined;
	memory.state.handledStop = { hookId: note.hookId, evaluated: evaluatedOf(note.status) };
	return note.status;
}

/** Where the check's state is kept: a stop note it has taken is dropped with it (both are saved in the one write). */
export function forgetHandledStop(data: IDataObject, state: GapState): void {
	const note = stopNoteIn(data);
	if (note && handles(state, note)) delete data[STOP_KEY];
}

/** Whether the check's state has taken this stop (the same hook, stopped with no more blocks evaluated). */
function handles(state: GapState, note: StopNote): boolean {
	const handled = state.handledStop;
	return handled !== undefined && typeof handled === 'object' && handled.hookId === note.hookId && handled.evaluated >= evaluatedOf(note.status);
}
