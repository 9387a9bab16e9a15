/** What the service POSTs to a hook's webhook, and the POST itself (http or https). */
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import https from 'node:https';

import { matchingTransactions, type Block } from './chain';
import type { DeliveryPayload, Direction, HookRecord, Network, SecretHeader } from './types';

export const DELIVERY_TIMEOUT_MS = 10_000;
const USER_AGENT = 'stacks-hooks-emulator';

/** The block cut down to the hook's matching transactions, or null when none match (nothing is sent). */
export function buildPayload(
	hook: HookRecord,
	block: Block,
	network: Network,
	direction: Direction,
): DeliveryPayload | null {
	const transactions = matchingTransactions(hook.definition, block);
	if (transactions.length === 0) return null;
	const matched: Block = structuredClone({ ...block, transactions });
	return {
		chainhook: { uuid: hook.uuid, name: hook.definition.name },
		event: {
			chain: 'stacks',
			network,
			apply: direction === 'apply' ? [matched] : [],
			rollback: direction === 'rollback' ? [matched] : [],
		},
	};
}

export function deliveryHeaders(
	secret: string | null,
	secretHeader: SecretHeader,
): Record<string, string> {
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		'user-agent': USER_AGENT,
	};
	if (secret !== null)
		headers[secretHeader] = secretHeader === 'authorization' ? `Bearer ${secret}` : secret;
	return headers;
}

export interface TlsOptions {
	/** CA or certificate to trust (a self-signed receiver). */
	ca?: string | Buffer;
	/** Skip certificate verification. */
	insecure?: boolean;
}

export interface PostResult {
	status: number | null;
	error?: string;
}

function describeError(error: unknown): string {
	if (!(error instanceof Error)) return String(error);
	const code = (error as NodeJS.ErrnoException).code;
	return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/** POSTs deliveries over its own keep-alive agents, so close() leaves no socket behind. */
export class DeliveryClient {
	private readonly httpAgent = new http.Agent({ keepAlive: true });
	private readonly httpsAgent: https.Agent;
	private readonly aborter = new AbortController();

	constructor(
		tls: TlsOptions,
		private readonly timeoutMs = DELIVERY_TIMEOUT_MS,
	) {
		this.httpsAgent = new https.Agent({
			keepAlive: true,
			ca: tls.ca,
			rejectUnauthorized: !tls.insecure,
		});
		// Every POST in flight listens on the one signal; there may be many.
		setMaxListeners(0, this.aborter.signal);
	}

	/** Never rejects: a non-2xx answer or a network error comes back in the result. */
	post(url: string, body: unknown, headers: Record<string, string>): Promise<PostResult> {
		const data = Buffer.from(JSON.stringify(body));
		const target = new URL(url);
		const secure = target.protocol === 'https:';
		const transport = secure ? https : http;
		return new Promise((resolve) => {
			const request = transport.request(
				target,
				{
					method: 'POST',
					headers: { ...headers, 'content-length': String(data.length) },
					agent: secure ? this.httpsAgent : this.httpAgent,
					timeout: this.timeoutMs,
					signal: this.aborter.signal,
				},
				(response) => {
					const status = response.statusCode ?? null;
					response.resume();
					response.on('end', () => {
						const ok = status !== null && status >= 200 && status < 300;
						resolve(ok ? { status } : { status, error: `Receiver answered ${status}` });
					});
					response.on('error', (error) => resolve({ status, error: describeError(error) }));
				},
			);
			request.on('timeout', () =>
				request.destroy(new Error(`No answer within ${this.timeoutMs} ms`)),
			);
			request.on('error', (error) => resolve({ status: null, error: describeError(error) }));
			request.end(data);
		});
	}

	/** Aborts the POSTs in flight (they resolve as failed) and closes the sockets. */
	close(): void {
		this.aborter.abort();
		this.httpAgent.destroy();
		this.httpsAgent.destroy();
	}
}
