/**
 * The service's hook endpoints as functions, shared by the action node's
 * operations, the trigger's lifecycle and the hook picker. The only callers
 * of the transport, with one convention: the context, what the endpoint
 * needs, then an options object.
 */
import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod';

import { MAX_PAGE_SIZE } from '../constants';
import {
	bulkResultSchema,
	type Definition,
	type DefinitionUpdate,
	type Hook,
	type HookPage,
	hookPageSchema,
	hookSchema,
} from '../schemas';
import { getConnection } from '../transport/connection';
import type { RequestContext } from '../transport/context';
import { asNodeError, isNotFound } from '../transport/errors';
import { apiRequest, type CallOptions } from '../transport/request';

/** An answer that is a hook, or anything else taken as no hook. */
const hookOrNothing = z.union([hookSchema, z.unknown().transform(() => undefined)]);

/** Pages after the first are fetched this many at a time; the transport's pacing keeps them within the rate limit. */
const PAGE_CONCURRENCY = 10;

export async function registerHook(ctx: RequestContext, definition: Definition, options: CallOptions = {}): Promise<Hook> {
	return await apiRequest(ctx, { method: 'POST', path: '/me/', body: definition, schema: hookSchema, ...options });
}

export async function getHook(ctx: RequestContext, uuid: string, options: CallOptions = {}): Promise<Hook> {
	return await apiRequest(ctx, { method: 'GET', path: `/me/${uuid}`, schema: hookSchema, hookId: uuid, ...options });
}

/** The hook, or undefined when the service says it is gone (404). */
export async function readHook(ctx: RequestContext, uuid: string, options: CallOptions = {}): Promise<Hook | undefined> {
	try {
		return await getHook(ctx, uuid, options);
	} catch (error) {
		if (isNotFound(error)) return undefined;
		throw asNodeError(ctx.getNode(), error);
	}
}

/**
 * Updates the hook in place; answers the hook as the service answered it (the official client's `updateChainhook`
 * returns it, status included), or undefined when the answer is not a hook (the contract does not show it).
 */
export async function updateHook(
	ctx: RequestContext,
	uuid: string,
	update: DefinitionUpdate,
	options: CallOptions = {},
): Promise<Hook | undefined> {
	return await apiRequest(ctx, { method: 'PATCH', path: `/me/${uuid}`, body: update, hookId: uuid, schema: hookOrNothing, ...options });
}

export async function setHookEnabled(
	ctx: RequestContext,
	uuid: string,
	enabled: boolean,
	options: CallOptions = {},
): Promise<void> {
	await apiRequest(ctx, { method: 'PATCH', path: `/me/${uuid}/enabled`, body: { enabled }, hookId: uuid, ...options });
}

/** Enables or disables every hook matching `filters` (already validated); answers the UUIDs changed. */
export async function setHooksEnabled(
	ctx: RequestContext,
	enabled: boolean,
	filters: IDataObject,
	options: CallOptions = {},
): Promise<string[]> {
	const body = { enabled, filters };
	const result = await apiRequest(ctx, { method: 'PATCH', path: '/me/enabled', body, schema: bulkResultSchema, ...options });
	return result.updated_uuids;
}

/** A block, by height or by index block hash. */
export type BlockRef = { block_height: number } | { index_block_hash: string };

/** Asks the service to run the hook against one block; matches are posted to its webhook. */
export async function evaluateHook(ctx: RequestContext, uuid: string, block: BlockRef, options: CallOptions = {}): Promise<void> {
	await apiRequest(ctx, { method: 'POST', path: `/me/${uuid}/evaluate`, body: block, hookId: uuid, ...options });
}

export async function deleteHook(ctx: RequestContext, uuid: string, options: CallOptions = {}): Promise<void> {
	await apiRequest(ctx, { method: 'DELETE', path: `/me/${uuid}`, hookId: uuid, ...options });
}

/** Deletes the hook; false when the service says it was gone already (404). */
export async function deleteHookIfThere(ctx: RequestContext, uuid: string, options: CallOptions = {}): Promise<boolean> {
	try {
		await deleteHook(ctx, uuid, options);
		return true;
	} catch (error) {
		if (isNotFound(error)) return false;
		throw asNodeError(ctx.getNode(), error);
	}
}

/** One page of the account's hooks, oldest first. */
export async function getHookPage(
	ctx: RequestContext,
	{ offset, limit, ...options }: CallOptions & { offset: number; limit: number },
): Promise<HookPage> {
	return await apiRequest(ctx, { method: 'GET', path: '/me/', qs: { limit, offset }, schema: hookPageSchema, ...options });
}

async function inBatches<T, R>(inputs: T[], size: number, run: (input: T) => Promise<R>): Promise<R[]> {
	const results: R[] = [];
	for (let start = 0; start < inputs.length; start += size) {
		results.push(...(await Promise.all(inputs.slice(start, start + size).map(run))));
	}
	return results;
}

/**
 * Up to `wanted` hooks from `offset` on, oldest first. The first page tells
 * the total, so the pages after it are fetched concurrently.
 */
export async function listHooks(
	ctx: RequestContext,
	{ offset = 0, wanted = Infinity, ...options }: CallOptions & { offset?: number; wanted?: number } = {},
): Promise<Hook[]> {
	const call = { ...options, connection: options.connection ?? (await getConnection(ctx)) };
	const page = async (pageOffset: number, size: number) => await getHookPage(ctx, { ...call, offset: pageOffset, limit: size });

	const first = await page(offset, Math.min(MAX_PAGE_SIZE, wanted));
	const end = Math.min(first.total, offset + wanted);
	const offsets: number[] = [];
	for (let next = offset + first.results.length; first.results.length > 0 && next < end; next += MAX_PAGE_SIZE) {
		offsets.push(next);
	}
	const rest = await inBatches(offsets, PAGE_CONCURRENCY, async (pageOffset) =>
		(await page(pageOffset, Math.min(MAX_PAGE_SIZE, end - pageOffset))).results,
	);
	return [first.results, ...rest].flat().slice(0, wanted === Infinity ? undefined : wanted);
}

/**
 * The account's hooks that post to `url`, or to any URL ending with `{ path }` (n8n's webhook path of a node, whatever
 * the base URL): the trigger's own, as n8n makes a node's webhook URL unique to it.
 */
export async function hooksPostingTo(ctx: RequestContext, url: string | { path: string }, options: CallOptions = {}): Promise<Hook[]> {
	const posting = typeof url === 'string' ? (at: string) => at === url : (at: string) => at.endsWith(url.path);
	return (await listHooks(ctx, options)).filter((hook) => posting(hook.definition.action.url ?? ''));
}
