/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** Small HTTP helpers shared by the API and the control endpoints. */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Reply {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
}

/** Thrown by handlers; becomes an error answer `{error, details}`. */
export class HttpError extends Error {
	constructor(
		readonly status: number,
		readonly details: string,
		readonly headers: Record<string, string> = {},
	) {
		super(details);
	}

	get reply(): Reply {
		return { status: this.status, body: errorBody(this.status, this.details), headers: this.headers };
	}
}

export function errorBody(status: number, details: string): { error: string; details: string } {
	return { error: STATUS_CODES[status] ?? 'Error', details };
}

export const badRequest = (details: string) => new HttpError(400, details);

export interface RawBody {
	text: string;
	tooLarge: boolean;
}

/** Reads the whole body, keeping at most `limit` bytes (the rest is drained so the client gets its answer). */
export async function readBody(request: IncomingMessage, limit: number): Promise<RawBody> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size <= limit) chunks.push(chunk);
	}
	return { text: Buffer.concat(chunks).toString('utf8'), tooLarge: size > limit };
}

/** The JSON body, or undefined when there is none; 413 on a body that is too large, 400 on one not JSON or not declared as JSON. */
export function jsonBody(request: IncomingMessage, raw: RawBody, limit: number): unknown {
	if (raw.tooLarge) throw new HttpError(413, `Request body is too large: more than ${limit} bytes`);
	if (raw.text === '') return undefined;
	if (request.headers['content-type']?.split(';')[0].trim().toLowerCase() !== 'application/json') throw badRequest('Content-Type must be application/json');
	try {
		return JSON.parse(raw.text) as unknown;
	} catch {
		throw badRequest('Request body is not valid JSON');
	}
}

export function send(response: ServerResponse, reply: Reply): void {
	if (reply.body === undefined) {
		response.writeHead(reply.status, { ...reply.headers }).end();
		return;
	}
	const data = JSON.stringify(reply.body);
	const headers = { ...reply.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(data)) };
	response.writeHead(reply.status, headers).end(data);
}

/** A path pattern and the handler of each method it answers. */
export interface Route<H> {
	pattern: RegExp;
	methods: Partial<Record<string, H>>;
}

/** The handler for method and path; 405 (HttpError) for a known path with another method; null when no route matches. */
export function route<H>(routes: Array<Route<H>>, method: string, path: string): { handler: H; params: string[] } | null {
	for (const { pattern, methods } of routes) {
		const match = pattern.exec(path);
		if (!match) continue;
		const handler = methods[method];
		if (handler) return { handler, params: match.slice(1) };
		const allow = Object.keys(methods).join(', ');
		throw new HttpError(405, `${method} is not allowed here; allowed: ${allow}`, { allow });
	}
	return null;
}
