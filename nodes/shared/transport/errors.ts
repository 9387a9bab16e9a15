/**
 * The wording of every error the service's answers can lead to: what went
 * wrong, in the user's terms, and what to do about it. The API key never
 * appears: n8n adds it to requests, and nothing here reads it.
 */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod';

import { describeIssues, errorBodySchema } from '../schemas';

export interface ErrorContext {
	/** The hook the request was about, named in a 404. */
	hookId?: string;
	itemIndex?: number;
	/** With a 429: how many attempts were made, and the wait the service asked for. */
	attempts?: number;
	retryAfter?: number;
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
			description = `${details ? `${details}. ` : ''}Check the API key in the "Stacks Hooks API" credential, and that it belongs to the credential's network.`;
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
			message =
				status >= 500
					? `The Stacks Hooks service failed (${status})${said ? `: ${said}` : ''}`
					: `The Stacks Hooks service refused the request (${status})${said ? `: ${said}` : ''}`;
			description = details ?? error ?? 'The service gave no details.';
	}
	const response: JsonObject = { httpCode: String(status), ...(error ? { error } : {}), ...(details ? { details } : {}) };
	return new NodeApiError(node, response, {
		message,
		description,
		httpCode: String(status),
		itemIndex: context.itemIndex,
	});
}

function describeNetworkError(error: unknown): string {
	if (error && typeof error === 'object') {
		const { code, message } = error as { code?: unknown; message?: unknown };
		if (typeof code === 'string') return code;
		if (typeof message === 'string') return message;
	}
	return String(error);
}

/** No answer at all: refused, reset, unknown host. */
export function unreachableError(node: INode, baseUrl: string, error: unknown, itemIndex?: number): NodeApiError {
	const cause = describeNetworkError(error);
	return new NodeApiError(
		node,
		{ message: cause },
		{
			message: `Could not reach the Stacks Hooks service at ${baseUrl} (${cause})`,
			description: "Check the credential's network and Base URL, and that this n8n can reach the service.",
			itemIndex,
		},
	);
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
