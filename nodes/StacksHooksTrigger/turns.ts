/**
 * One thing at a time per trigger node in this n8n process: its lifecycle (checkExists, create,
 * delete) and its health check both read and change the same hook. n8n 2.x runs a node's webhook
 * registration and its trigger() side by side, so without this a health check could see a hook
 * that activation is replacing and register a second one.
 *
 * The turns themselves are ../../shared/turns.ts's, keyed by the node (../nodeMemory.ts).
 */
import type { IHookFunctions, ITriggerFunctions } from 'n8n-workflow';

import { isBusy, inTurn as inTurnOf } from '../shared/turns';
import { nodeKey } from './nodeMemory';

/** Runs `work` once the node's current turn, if any, has ended (lifecycle methods wait). */
export async function inTurn<T>(ctx: IHookFunctions | ITriggerFunctions, work: () => Promise<T>): Promise<T> {
	return await inTurnOf(nodeKey(ctx), work);
}

/** Runs `work` only if nothing else holds the node's turn; undefined when it was skipped (health checks). */
export async function ifFree<T>(ctx: IHookFunctions | ITriggerFunctions, work: () => Promise<T>): Promise<T | undefined> {
	if (isBusy(nodeKey(ctx))) return undefined;
	return await inTurn(ctx, work);
}
