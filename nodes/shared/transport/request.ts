/**
 * The one door to the service: every request of both nodes goes through
 * `apiRequest` (called only by the API layer, `../api/`). The URL comes from
 * the credential, `x-api-key` is added by n8n's credential machinery (never
 * by us, so the key never enters a message), 429s are retried with the
 * contract's back-off, the rate-limit headers pace requests so a run stays
 * under the budget instead of running into it, error bodies become errors a
 * user can act on, and every answer is checked against its schema before a
 * workflow sees it.
 */
import type { IDataObject, IHttpRequestMethods, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';
import type { z } from 'zod';

import { CREDENTIAL_TYPE, MAX_ATTEMPTS, MAX_RETRY_WAIT_SECONDS } from '../constants';

import { type Connection, getConnection } from './connection';
import type { RequestContext } from './context';
import { serviceError, unreachableError, unreadableAnswerError } from './errors';
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
	/** Reuse a connection already read from the credential. */
	connection?: Connection;
}

/** What every API helper takes last: the item it runs for, and a connection already read. */
export type CallOptions = Pick<ApiRequest<unknown>, 'itemIndex' | 'connection'>;

export async function apiRequest<T = undefined>(ctx: RequestContext, request: ApiRequest<T>): Promise<T> {
	const { method, path, schema, itemIndex } = request;
	const connection = request.connection ?? (await getConnection(ctx));
	const pacer = pacerFor(connection.accountKey);
	const options: IHttpRequestOptions = {
		method,
		url: `${connection.baseUrl}${path}`,
		qs: request.qs,
		body: request.body,
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
				options,
			)) as IN8nHttpFullResponse;
		} catch (error) {
			throw unreachableError(ctx.getNode(), connection.baseUrl, error, itemIndex);
		}
		const status = response.statusCode;

		if (status === 429) {
			const wait = retryDelaySeconds(response.headers['retry-after'], attempt);
			if (attempt + 1 >= MAX_ATTEMPTS || wait > MAX_RETRY_WAIT_SECONDS) {
				throw serviceError(ctx.getNode(), status, response.body, { ...request, attempts: attempt + 1, retryAfter: wait });
			}
			// The next acquire() waits this out, and so does every concurrent request.
			pacer.pause(wait * 1000);
			continue;
		}
		pacer.update(response.headers);
		if (status < 200 || status >= 300) throw serviceError(ctx.getNode(), status, response.body, request);
		if (!schema) return undefined as T;
		const parsed = schema.safeParse(response.body);
		if (!parsed.success) throw unreadableAnswerError(ctx.getNode(), `${method} ${path}`, parsed.error, itemIndex);
		return parsed.data;
	}
}
