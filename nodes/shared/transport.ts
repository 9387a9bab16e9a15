/**
 * The one door to the service. Every request of both nodes goes through
 * `apiRequest`: URL built from the credential, `x-api-key` added by n8n's
 * credential machinery (never by us, so the key never enters a message),
 * 429s retried with the contract's back-off, the rate-limit headers used to
 * pace requests so a run stays under the budget instead of running into it,
 * `{error, details}` bodies turned into errors a user can act on, and every
 * answer checked against its schema before a workflow sees it.
 */
import { createHash } from 'crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	INode,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type { z } from 'zod';

import {
	CREDENTIAL_TYPE,
	MAX_ATTEMPTS,
	MAX_RETRY_WAIT_SECONDS,
	NETWORK_BASE_URLS,
	type Network,
} from './constants';
import { describeIssues, errorBodySchema } from './schemas';

export type RequestContext = IExecuteFunctions | IHookFunctions | ILoadOptionsFunctions;

export interface Connection {
	baseUrl: string;
	network: Network;
	consumerSecret: string;
	/** Identifies the account for pacing without keeping the key itself. */
	accountKey: string;
}

export interface RequestOptions<T> {
	body?: IDataObject;
	qs?: IDataObject;
	/** Checks the answer; omit for answers without a body. */
	schema?: z.ZodType<T, z.ZodTypeDef, unknown>;
	/** The hook the request is about, named in a 404. */
	hookId?: string;
	itemIndex?: number;
}

export async function getConnection(ctx: RequestContext): Promise<Connection> {
	const credentials = await ctx.getCredentials(CREDENTIAL_TYPE);
	const network: Network = credentials.network === 'mainnet' ? 'mainnet' : 'testnet';
	const configured = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim() : '';
	const baseUrl = (configured || NETWORK_BASE_URLS[network]).replace(/\/+$/, '');
	if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The credential's Base URL "${baseUrl}" is not an http(s) address`,
			{ description: 'Leave Base URL empty to use the public service, or set a full address such as https://api.testnet.hiro.so/chainhooks/v1.' },
		);
	}
	const apiKey = typeof credentials.apiKey === 'string' ? credentials.apiKey : '';
	return {
		baseUrl,
		network,
		consumerSecret: typeof credentials.consumerSecret === 'string' ? credentials.consumerSecret : '',
		accountKey: `${baseUrl}#${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`,
	};
}

/**
 * Pacing from the rate-limit headers: while the window's budget lasts,
 * requests go straight out; when it is spent, the next request waits for the
 * reset instead of earning a 429. Shared by all executions in this process,
 * per account, because the budget is the account's.
 */
class Pacer {
	private remaining: number | undefined;

	private resetAt = 0;

	private pausedUntil = 0;

	async acquire(): Promise<void> {
		for (;;) {
			const now = Date.now();
			if (this.pausedUntil > now) {
				await sleep(this.pausedUntil - now);
				continue;
			}
			if (this.remaining !== undefined && this.remaining <= 0) {
				if (this.resetAt > now) {
					await sleep(this.resetAt - now + 25);
					continue;
				}
				this.remaining = undefined;
			}
			break;
		}
		if (this.remaining !== undefined) this.remaining -= 1;
	}

	update(headers: IDataObject): void {
		const remaining = Number(headers['ratelimit-remaining']);
		const reset = Number(headers['ratelimit-reset']);
		if (!Number.isFinite(remaining) || !Number.isFinite(reset)) return;
		// The contract sends a Unix timestamp; a small number is read as seconds from now.
		const resetAt = reset > 1e9 ? reset * 1000 : Date.now() + reset * 1000;
		if (this.remaining === undefined || resetAt > this.resetAt + 500) {
			this.resetAt = resetAt;
			this.remaining = remaining;
		} else {
			// Same window: answers to concurrent requests arrive out of order; trust the lowest.
			this.remaining = Math.min(this.remaining, remaining);
		}
	}

	/** After a 429: every request of the account waits `retry-after` (or the back-off). */
	pause(ms: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
	}
}

const pacers = new Map<string, Pacer>();

function pacerFor(accountKey: string): Pacer {
	let pacer = pacers.get(accountKey);
	if (!pacer) {
		pacer = new Pacer();
		pacers.set(accountKey, pacer);
	}
	return pacer;
}

/** Seconds to wait before retry `attempt` (0-based): the service's `retry-after` when given, else 2^attempt. */
export function retryDelaySeconds(retryAfter: unknown, attempt: number): number {
	if (typeof retryAfter === 'string' && retryAfter.trim() !== '') {
		const seconds = Number(retryAfter);
		if (Number.isFinite(seconds) && seconds >= 0) return seconds;
		const date = Date.parse(retryAfter);
		if (!Number.isNaN(date)) return Math.max(0, (date - Date.now()) / 1000);
	}
	return 2 ** attempt;
}

function detailsOf(body: unknown): { error?: string; details?: string } {
	const parsed = errorBodySchema.safeParse(body);
	if (!parsed.success) return typeof body === 'string' && body ? { details: body.slice(0, 500) } : {};
	const { error, details } = parsed.data;
	return {
		error,
		details: details === undefined ? undefined : typeof details === 'string' ? details : JSON.stringify(details),
	};
}

function apiError(
	ctx: RequestContext,
	status: number,
	body: unknown,
	options: { hookId?: string; itemIndex?: number; attempts?: number; retryAfter?: number },
): NodeApiError {
	const { error, details } = detailsOf(body);
	const said = [error, details].filter(Boolean).join(': ');
	let message: string;
	let description: string;
	switch (status) {
		case 401:
		case 403:
			message = `The Stacks Hooks service rejected the API key (${status}${error ? ` ${error}` : ''})`;
			description = `${details ? `${details}. ` : ''}Check the API key in the "Stacks Hooks API" credential, and that it belongs to the credential's network.`;
			break;
		case 404:
			message = options.hookId
				? `Hook ${options.hookId} was not found (404)`
				: `The service has no such resource (404${error ? ` ${error}` : ''})`;
			description = `${details ? `${details}. ` : ''}The hook may have been deleted, or it belongs to another account or network.`;
			break;
		case 429:
			message = `Rate limit exceeded: the service still answered 429 after ${options.attempts ?? 1} attempt(s)`;
			description = `${said ? `${said}. ` : ''}${options.retryAfter !== undefined ? `The service asked to wait ${options.retryAfter} s. ` : ''}Run fewer items at once, or raise the account's tier.`;
			break;
		default:
			message =
				status >= 500
					? `The Stacks Hooks service failed (${status})${said ? `: ${said}` : ''}`
					: `The Stacks Hooks service refused the request (${status})${said ? `: ${said}` : ''}`;
			description = details ?? error ?? 'The service gave no details.';
	}
	const response: JsonObject = { httpCode: String(status), ...(error ? { error } : {}), ...(details ? { details } : {}) };
	return new NodeApiError(ctx.getNode(), response, {
		message,
		description,
		httpCode: String(status),
		itemIndex: options.itemIndex,
	});
}

function describeTransportError(error: unknown): string {
	if (error && typeof error === 'object') {
		const { code, message } = error as { code?: unknown; message?: unknown };
		if (typeof code === 'string') return code;
		if (typeof message === 'string') return message;
	}
	return String(error);
}

/** Sends one API request; see the module comment for what it takes care of. */
export async function apiRequest<T = undefined>(
	ctx: RequestContext,
	method: IHttpRequestMethods,
	path: string,
	options: RequestOptions<T> = {},
	connection?: Connection,
): Promise<T> {
	const conn = connection ?? (await getConnection(ctx));
	const pacer = pacerFor(conn.accountKey);
	const request: IHttpRequestOptions = {
		method,
		url: `${conn.baseUrl}${path}`,
		qs: options.qs,
		body: options.body,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};

	for (let attempt = 0; ; attempt++) {
		await pacer.acquire();
		let response: IN8nHttpFullResponse;
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				CREDENTIAL_TYPE,
				request,
			)) as IN8nHttpFullResponse;
		} catch (error) {
			throw new NodeApiError(
				ctx.getNode(),
				{ message: describeTransportError(error) },
				{
					message: `Could not reach the Stacks Hooks service at ${conn.baseUrl} (${describeTransportError(error)})`,
					description: "Check the credential's network and Base URL, and that this n8n can reach the service.",
					itemIndex: options.itemIndex,
				},
			);
		}
		const status = response.statusCode;

		if (status === 429) {
			const wait = retryDelaySeconds(response.headers['retry-after'], attempt);
			if (attempt + 1 >= MAX_ATTEMPTS || wait > MAX_RETRY_WAIT_SECONDS) {
				throw apiError(ctx, status, response.body, { ...options, attempts: attempt + 1, retryAfter: wait });
			}
			// The next acquire() waits this out, and so does every concurrent request.
			pacer.pause(wait * 1000);
			continue;
		}
		pacer.update(response.headers);
		if (status < 200 || status >= 300) {
			throw apiError(ctx, status, response.body, options);
		}
		if (!options.schema) return undefined as T;
		const parsed = options.schema.safeParse(response.body);
		if (!parsed.success) {
			throw new NodeOperationError(
				ctx.getNode(),
				`The Stacks Hooks service sent an answer this node does not understand (${method} ${path})`,
				{ description: describeIssues(parsed.error), itemIndex: options.itemIndex },
			);
		}
		return parsed.data;
	}
}

/** The error as n8n reports it: NodeApiErrors and NodeOperationErrors unchanged (keeping their HTTP code), others wrapped. */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}
