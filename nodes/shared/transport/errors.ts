/**
 * The wording of every error the service's answers can lead to: what went
 * wrong, in the user's terms, and what to do about it. The API key never
 * appears: n8n adds it to requests, and nothing here reads it.
 */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod';

import { TRANSIENT_STATUSES } from '../constants';
import { describeIssues, errorBodySchema } from '../schemas';

export interface ErrorContext {
	/** The hook the request was about, named in a 404. */
	hookId?: string;
	itemIndex?: number;
	/** How many attempts were made (a 429 or a blip is tried again), and the wait the service asked for with a 429. */
	attempts?: number;
	retryAfter?: number;
	/** The service's address, named in the message when it could not handle a request. */
	baseUrl?: string;
	/** Whether the request is one the transport sends again (see safeToRepeat in ./request). */
	repeatable?: boolean;
}

const attemptsText = (attempts: number): string => `${attempts} attempt${attempts === 1 ? '' : 's'}`;

/** For a request that was not sent again although the service may have carried it out. */
const NOT_REPEATED =
	'The request was not sent again, because the service may have carried it out before its answer was lost: check whether it did (for example with Get Many) before running it again.';

function detailsOf(body: unknown): { error?: string; details?: string } {
	const parsed = errorBodySchema.safeParse(body);
	if (!parsed.success) return typeof body === 'string' && body ? { details: body.slice(0, 500) } : {};
	const { error, details } = parsed.data;
	return {
		error,
		details: details === undefined ? undefined : typeof details === 'string' ? details : JSON.stringify(details),
	};
}

/** The service answered `status` (not 2xx) with `body`. */
export function serviceError(node: INode, status: number, body: unknown, context: ErrorContext): NodeApiError {
	const { error, details } = detailsOf(body);
	const said = [error, details].filter(Boolean).join(': ');
	let message: string;
	let description: string;
	switch (status) {
		case 401:
		case 403:
			message = `The Stacks Hooks service rejected the API key (${status}${error ? ` ${error}` : ''})`;
			description = `${details ? `${details}. ` : ''}Check the API key ('API Key' in the Stacks Hooks API credential), and that it belongs to the credential's 'Network'.`;
			break;
		case 404:
			message = context.hookId
				? `Hook ${context.hookId} was not found (404)`
				: `The service has no such resource (404${error ? ` ${error}` : ''})`;
			description = `${details ? `${details}. ` : ''}The hook may have been deleted, or it belongs to another account or network.`;
			break;
		case 429:
			message = `Rate limit exceeded: the service still answered 429 after ${context.attempts ?? 1} attempt(s)`;
			description = `${said ? `${said}. ` : ''}${context.retryAfter !== undefined ? `The service asked to wait ${context.retryAfter} s. ` : ''}Run fewer items at once, or raise the account's tier.`;
			break;
		default:
			if (status >= 500) {
				const where = context.baseUrl ? ` at ${context.baseUrl}` : '';
				message = `The Stacks Hooks service${where} could not handle the request (${status}) after ${attemptsText(context.attempts ?? 1)}${said ? `: ${said}` : ''}`;
				const toDo = !TRANSIENT_STATUSES.includes(status)
					? 'Try again later; if it keeps happening, report it to the service with the details above.'
					: context.repeatable === false
						? `It seems briefly unavailable. ${NOT_REPEATED}`
						: "It seems briefly unavailable: try again in a few minutes; if it keeps happening, check the service's status.";
				description = `${details ?? error ?? 'The service gave no details.'} ${toDo}`;
			} else {
				message = `The Stacks Hooks service refused the request (${status})${said ? `: ${said}` : ''}`;
				description = details ?? error ?? 'The service gave no details.';
			}
	}
	const response: JsonObject = { httpCode: String(status), ...(error ? { error } : {}), ...(details ? { details } : {}) };
	return new NodeApiError(node, response, {
		message,
		description,
		httpCode: String(status),
		itemIndex: context.itemIndex,
	});
}

/** Why a request got no answer, as far as the error n8n hands back tells. */
export interface NetworkFailure {
	/** The error code (e.g. ECONNRESET) or, without one, the message: what the user is shown. */
	cause: string;
	timedOut: boolean;
	/** A blip (reset, refused, hung up, timed out): worth another attempt for a request that is safe to repeat. */
	transient: boolean;
}

const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'ECONNABORTED', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const RESET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * n8n wraps the HTTP client's error in a NodeApiError whose message is its own
 * wording; the code (ECONNRESET, ECONNABORTED for the client's time limit, ...)
 * is on the error it wraps, its `cause`. So the whole chain is read.
 */
export function networkFailureOf(error: unknown): NetworkFailure {
	const codes: string[] = [];
	const messages: string[] = [];
	const seen = new Set<unknown>();
	for (let level = error; level && typeof level === 'object' && !seen.has(level); level = (level as { cause?: unknown }).cause) {
		seen.add(level);
		const { code, message } = level as { code?: unknown; message?: unknown };
		if (typeof code === 'string') codes.push(code);
		if (typeof message === 'string') messages.push(message);
	}
	const timedOut = codes.some((code) => TIMEOUT_CODES.has(code)) || messages.some((message) => /timeout of \d+ ?ms exceeded|timed? ?out/i.test(message));
	const reset = codes.some((code) => RESET_CODES.has(code)) || messages.some((message) => /socket hang up/i.test(message));
	return {
		cause: codes[0] ?? messages.at(-1) ?? String(error),
		timedOut,
		transient: timedOut || reset,
	};
}

/** No answer at all: timed out, refused, reset, unknown host. */
export function unreachableError(
	node: INode,
	baseUrl: string,
	failure: NetworkFailure,
	context: { attempts: number; timeoutMs: number; repeatable: boolean; itemIndex?: number },
): NodeApiError {
	const { attempts, timeoutMs, repeatable, itemIndex } = context;
	const refused = failure.cause === 'ECONNREFUSED';
	let message: string;
	let description: string;
	if (failure.timedOut) {
		message = `The Stacks Hooks service at ${baseUrl} did not answer within ${timeoutMs / 1000} s (timed out, ${attemptsText(attempts)})`;
		description = repeatable
			? "It may be overloaded or down: try again in a few minutes; if it keeps happening, check the service's status and the credential's 'Base URL'."
			: NOT_REPEATED;
	} else {
		message = `Could not reach the Stacks Hooks service at ${baseUrl} (${failure.cause}) after ${attemptsText(attempts)}`;
		description = `Check the credential's 'Network' and 'Base URL', and that this n8n can reach the service; if it could before, the service may be restarting: try again in a few minutes.${!repeatable && failure.transient && !refused ? ` ${NOT_REPEATED}` : ''}`;
	}
	const apiError = new NodeApiError(node, { message: failure.cause }, { message, description, itemIndex });
	// n8n swaps a message naming a common error code (ECONNRESET, ETIMEDOUT, ...) for its generic
	// wording, which would drop the address and the attempts: this one is kept as written.
	apiError.message = message;
	return apiError;
}

/** A 2xx answer whose body does not have the shape the contract gives it. */
export function unreadableAnswerError(node: INode, what: string, issues: z.ZodError, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(node, `The Stacks Hooks service sent an answer this node does not understand (${what})`, {
		description: describeIssues(issues),
		itemIndex,
	});
}

/** The error as n8n reports it: NodeApiErrors and NodeOperationErrors unchanged (keeping their HTTP code), others wrapped. */
export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error as Error, { itemIndex });
}

export function isNotFound(error: unknown): boolean {
	return error instanceof NodeApiError && error.httpCode === '404';
}
