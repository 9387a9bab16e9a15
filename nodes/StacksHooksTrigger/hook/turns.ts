/**
 * One thing at a time per trigger node in this n8n process: its lifecycle (checkExists, create,
 * delete) and its health check both read and change the same hook. n8n 2.x runs a node's webhook
 * registration and its trigger() side by side, so without this a health check could see a hook
 * that activation is replacing and register a second one.
 *
 * Written by hand: a mutex library would be a runtime dependency, which community nodes may not
 * have; this needs only a map of promises. It covers one process, which is where n8n runs both
 * (the main process, or the leader of several).
 */
import type { IHookFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import { nodeKey } from '../nodeKey';

const busy = new Map<string, Promise<unknown>>();


/** Runs `work` once the node's current turn, if any, has ended (lifecycle methods wait). */
export async function inTurn<T>(ctx: IHookFunctions | ITriggerFunctions, work: () => Promise<T>): Promise<T> {
	const key = nodeKey(ctx);
	for (let current = busy.get(key); current; current = busy.get(key)) await current.catch(() => undefined);
	const turn = work();
	busy.set(key, turn);
	try {
		return await turn;
	} finally {
		if (busy.get(key) === turn) busy.delete(key);
	}
}

/** Runs `work` only if nothing else holds the node's turn; undefined when it was skipped (health checks). */
export async function ifFree<T>(ctx: IHookFunctions | ITriggerFunctions, work: () => Promise<T>): Promise<T | undefined> {
	if (busy.has(nodeKey(ctx))) return undefined;
	return await inTurn(ctx, work);
}

/** Resolves once the node's current turn, if any, has ended, without taking one; true when there was one to wait for. */
export async function afterCurrentTurn(ctx: IWebhookFunctions): Promise<boolean> {
	const key = nodeKey(ctx);
	let waited = false;
	for (let current = busy.get(key); current; current = busy.get(key)) {
		waited = true;
		await current.catch(() => undefined);
	}
	return waited;
}
