/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** Shared by the emulator's tests: a webhook receiver, an API caller, sample addresses and definitions. */
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

import type { ChainhookDefinition, StacksEvent } from '@hirosystems/chainhooks-client/schemas';

import type { Emulator } from '../../emulator';

export const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
export const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
export const CAROL = 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC';
export const TOKEN = `${CAROL}.token`;
export const FT = `${TOKEN}::coin`;
export const NFT = `${CAROL}.art::piece`;
export const API_KEY = 'test-api-key';

export function definition(overrides: Partial<ChainhookDefinition> = {}): ChainhookDefinition {
	return {
		name: 'payments',
		version: '1',
		chain: 'stacks',
		network: 'testnet',
		filters: { events: [{ type: 'stx_transfer', sender: ALICE }] },
		action: { type: 'http_post', url: 'https://hooks.example.com/stacks' },
		...overrides,
	};
}

export function events(...filters: StacksEvent[]): ChainhookDefinition['filters'] {
	return { events: filters };
}

export interface Received {
	headers: IncomingHttpHeaders;
	body: unknown;
}

export interface Receiver {
	url: string;
	received: Received[];
	/** Status to answer with (default 200). */
	status: number;
	close(): Promise<void>;
}

/** A webhook receiver on loopback; https when given a key and certificate. */
export async function startReceiver(tls?: { key: string; cert: string }): Promise<Receiver> {
	const receiver: Receiver = { url: '', received: [], status: 200, close: async () => undefined };
	const listener: http.RequestListener = (request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			receiver.received.push({
				headers: request.headers,
				body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
			});
			response.writeHead(receiver.status).end();
		});
	};
	const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	receiver.url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}/webhook`;
	receiver.close = () =>
		new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	return receiver;
}

export interface ApiAnswer<T> {
	status: number;
	body: T;
	headers: Headers;
}

export interface ErrorBody {
	error: string;
	details: string;
}

/** Calls the emulator's API like a client would: JSON in, JSON out, the API key in x-api-key. */
export function apiClient(
	emulator: Emulator,
	apiKey: string | null = API_KEY,
	base = emulator.url,
) {
	return async function call<T = ErrorBody>(
		method: string,
		path: string,
		body?: unknown,
		headers: Record<string, string> = {},
	): Promise<ApiAnswer<T>> {
		const response = await fetch(`${base}${path}`, {
			method,
			headers: {
				...(apiKey === null ? {} : { 'x-api-key': apiKey }),
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
				...headers,
			},
			body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
		});
		const text = await response.text();
		return {
			status: response.status,
			body: (text ? JSON.parse(text) : undefined) as T,
			headers: response.headers,
		};
	};
}

export type ApiCall = ReturnType<typeof apiClient>;
