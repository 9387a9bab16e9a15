/**
 * The one door to the service: every request of both nodes goes through
 * `apiRequest` (called only by the API layer, `../api/`). The URL comes from
 * the credential, `x-api-key` is added by n8n's credential machinery (by us
 * only for the trigger's background checks, see ../api/client.ts; the key
 * never enters a message), every request has a time limit,
 * 429s are retried with the contract's back-off, and so are the blips of a
 * service that is briefly unavailable (502/503/504, a reset or refused
 * connection, a time-out) for the requests that are safe to send again. The
 * rate-limit headers pace requests so a run stays under the budget instead of
 * running into it, error bodies become errors a user can act on, and every
 * answer is checked against its schema before a workflow sees it.
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';
import type { z } from 'zod';

import { CREDENTIAL_TYPE, MAX_ATTEMPTS, MAX_RETRY_WAIT_SECONDS, type Network, REQUEST_TIMEOUT_MS, TRANSIENT_STATUSES } from '../constants';

import type { RequestContext } from './context';
import { networkFailureOf, serviceError, unreachableError, unreadableAnswerError } from './errors';
import { pacerFor, retryDelaySeconds } from './pacing';

export interface ApiRequest<T> {
	method: IHttpRequestMethods;
	/** From the base URL on, e.g. `/me/`. */
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
	/** Checks the answer; omit for answers without a body. */
	schema?: z.ZodType<T, z.ZodTypeDef, unknown>;
	/** The hook the request is about, named in a 404. */
	hookId?: string;
	itemIndex?: number;
	/** Where the request goes and for which account, read from the credential by the client (../api/client.ts). */
	connection: Connection;
}

/** Where requests go and for which account. */
export interface Connection {
	baseUrl: string;
	network: Network;
	consumerSecret: string;
	/** Identifies the account for pacing without keeping the key itself. */
	accountKey: string;
	/** Set only for requests sent outside any n8n run (../api/client.ts, connectionOf): the API key header. */
	authHeaders?: Record<string, string>;
}


/**
 * Whether sending the request again, when its answer did not come or said the
 * service was briefly unavailable, leaves the account as one successful send
 * would. Decided here, from method and path, and nowhere else, so that no
 * endpoint can be retried by accident: a new POST is not repeated until it is
 * added below.
 * - GET and DELETE: reads, and a delete of the same UUID (a second one finds
 *   nothing, the same end state).
 * - PATCH: all of the contract's PATCHes set state rather than add to it:
 *   `/me/{uuid}/enabled` and the bulk `/me/enabled` set a flag, and
 *   `/me/{uuid}` replaces the fields it names with the values given, so
 *   applying the same update twice leaves the same definition.
 * - POST `/me/{uuid}/evaluate`: asks for one block to be evaluated again; a
 *   repeat can at worst deliver that block's matches twice, which a
 *   workflow must already allow for (deliveries are at-least-once).
 * Not repeated: POST `/me/` (a second send would register a second hook:
 * the trigger looks before registering again, see its lifecycle) and POST
 * `/me/secret` (a second rotation would replace the secret the first one
 * answered with, and that answer may be the one that got through).
 */
export function safeToRepeat(method: IHttpRequestMethods, path: string): boolean {
	switch (method) {
		case 'GET':
		case 'HEAD':
		case 'DELETE':
		case 'PATCH':
			return true;
		case 'POST':
			return /\/evaluate$/.test(path);
		default:
			return false;
	}
}

export async function apiRequest<T = undefined>(ctx: RequestContext, request: ApiRequest<T>): Promise<T> {
	const { method, path, schema, itemIndex } = request;
	const { connection } = request;
	const { baseUrl } = connection;
	const pacer = pacerFor(connection.accountKey);
	const repeatable = safeToRepeat(method, path);
	const options: IHttpRequestOptions = {
		method,
		url: `${baseUrl}${path}`,
		qs: request.qs,
		body: request.body,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: REQUEST_TIMEOUT_MS,
	};

	for (let attempt = 0; ; attempt++) {
		const attempts = attempt + 1;
		const lastAttempt = attempts >= MAX_ATTEMPTS;
		await pacer.acquire();
		let response: IN8nHttpFullResponse;
		try {
			response = (
				connection.authHeaders
					? await ctx.helpers.httpRequest({ ...options, headers: { ...options.headers, ...connection.authHeaders } })
					: await ctx.helpers.httpRequestWithAuthentication.call(ctx, CREDENTIAL_TYPE, options)
			) as IN8nHttpFullResponse;
		} catch (error) {
			const failure = networkFailureOf(error);
			if (repeatable && failure.transient && !lastAttempt) {
				// Like a 429's wait, every request of the account sits this out: a service that just
				// dropped connections is not helped by the others arriving meanwhile.
				pacer.pause(2 ** attempt * 1000);
				continue;
			}
			throw unreachableError(ctx.getNode(), baseUrl, failure, {
				attempts,
				timeoutMs: REQUEST_TIMEOUT_MS,
				repeatable,
				itemIndex,
			});
		}
		const status = response.statusCode;

		if (status === 429) {
			const wait = retryDelaySeconds(response.headers['retry-after'], attempt);
			if (lastAttempt || wait > MAX_RETRY_WAIT_SECONDS) {
				throw serviceError(ctx.getNode(), status, response.body, { ...request, baseUrl, attempts, retryAfter: wait });
			}
			// The next acquire() waits this out, and so does every concurrent request.
			pacer.pause(wait * 1000);
			continue;
		}
		pacer.update(response.headers);
		if (repeatable && TRANSIENT_STATUSES.includes(status) && !lastAttempt) {
			// A 503 may say when to come back; otherwise the same back-off as a 429.
			const wait = retryDelaySeconds(response.headers['retry-after'], attempt);
			if (wait <= MAX_RETRY_WAIT_SECONDS) {
				pacer.pause(wait * 1000);
				continue;
			}
		}
		if (status < 200 || status >= 300) {
			throw serviceError(ctx.getNode(), status, response.body, { ...request, baseUrl, attempts, repeatable });
		}
		if (!schema) return undefined as T;
		const parsed = schema.safeParse(response.body);
		if (!parsed.success) throw unreadableAnswerError(ctx.getNode(), `${method} ${path}`, parsed.error, itemIndex);
		return parsed.data;
	}
}
