/**
 * The service's hook endpoints as functions, shared by the action node's
 * operations and the trigger's lifecycle. All go through the one transport.
 */
import { NodeApiError } from 'n8n-workflow';

import { MAX_PAGE_SIZE } from './constants';
import { type Definition, type Hook, hookPageSchema, hookSchema } from './schemas';
import { apiRequest, type Connection, getConnection, type RequestContext } from './transport';

/** Pages after the first are fetched this many at a time; the transport's pacing keeps them within the rate limit. */
const PAGE_CONCURRENCY = 10;

export async function registerHook(
	ctx: RequestContext,
	definition: Definition,
	itemIndex?: number,
	connection?: Connection,
): Promise<Hook> {
	return await apiRequest(ctx, 'POST', '/me/', { body: definition, schema: hookSchema, itemIndex }, connection);
}

export async function getHook(ctx: RequestContext, uuid: string, itemIndex?: number, connection?: Connection): Promise<Hook> {
	return await apiRequest(ctx, 'GET', `/me/${uuid}`, { schema: hookSchema, hookId: uuid, itemIndex }, connection);
}

export async function setHookEnabled(
	ctx: RequestContext,
	uuid: string,
	enabled: boolean,
	itemIndex?: number,
	connection?: Connection,
): Promise<void> {
	await apiRequest(ctx, 'PATCH', `/me/${uuid}/enabled`, { body: { enabled }, hookId: uuid, itemIndex }, connection);
}

export async function deleteHook(ctx: RequestContext, uuid: string, itemIndex?: number, connection?: Connection): Promise<void> {
	await apiRequest(ctx, 'DELETE', `/me/${uuid}`, { hookId: uuid, itemIndex }, connection);
}

export function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
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
	{ offset = 0, wanted = Infinity, itemIndex }: { offset?: number; wanted?: number; itemIndex?: number } = {},
): Promise<Hook[]> {
	const connection = await getConnection(ctx);
	const page = async (pageOffset: number, size: number) =>
		await apiRequest(
			ctx,
			'GET',
			'/me/',
			{ qs: { limit: size, offset: pageOffset }, schema: hookPageSchema, itemIndex },
			connection,
		);

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
