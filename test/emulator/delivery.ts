/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** What the service POSTs to a hook's webhook, and the POST itself (http or https, through undici). */
import { setImmediate as nextTurn } from 'node:timers/promises';

import { Agent, request } from 'undici';

import { matchingTransactions, type Block } from './chain';
import { asTheHookAsks, type NftIdEncoding } from './options';
import type { DeliveryPayload, Direction, HookRecord, Network, SecretHeader } from './types';

export const DELIVERY_TIMEOUT_MS = 10_000;

/** How a report's `error` begins when the receiver did not answer within the delivery time-out. */
export const NO_ANSWER = 'No answer within';

/** The block cut down to the hook's matching transactions, as its options ask (options.ts); null when none match. */
function cut(hook: HookRecord, block: Block, nftIds: NftIdEncoding): Block | null {
	const transactions = matchingTransactions(hook.definition, block);
	return transactions.length === 0 ? null : asTheHookAsks(structuredClone({ ...block, transactions }), hook.definition.options, nftIds);
}

/** The block cut down to the hook's matching transactions, or null when none match (nothing is sent). */
export function buildPayload(hook: HookRecord, block: Block, network: Network, direction: Direction, nftIds: NftIdEncoding): DeliveryPayload | null {
	const matched = cut(hook, block, nftIds);
	if (!matched) return null;
	return {
		chainhook: { uuid: hook.uuid, name: hook.definition.name },
		event: { chain: 'stacks', network, apply: direction === 'apply' ? [matched] : [], rollback: direction === 'rollback' ? [matched] : [] },
	};
}

/**
 * A reorganisation for one hook: the undone blocks (tip first) and the new ones (ascending), each cut down to
 * the hook's matching transactions, blocks without any left out; null when neither list keeps a block.
 */
export function buildReorgPayload(hook: HookRecord, rollback: Block[], apply: Block[], network: Network, nftIds: NftIdEncoding): DeliveryPayload | null {
	const cutAll = (blocks: Block[]) => blocks.flatMap((block) => cut(hook, block, nftIds) ?? []);
	const event = { chain: 'stacks' as const, network, rollback: cutAll(rollback), apply: cutAll(apply) };
	if (event.rollback.length === 0 && event.apply.length === 0) return null;
	return { chainhook: { uuid: hook.uuid, name: hook.definition.name }, event };
}

export function deliveryHeaders(secret: string | null, secretHeader: SecretHeader): Record<string, string> {
	const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'stacks-hooks-emulator' };
	if (secret !== null) headers[secretHeader] = secretHeader === 'authorization' ? `Bearer ${secret}` : secret;
	return headers;
}

export interface PostResult {
	status: number | null;
	error?: string;
}

/** POSTs deliveries over its own keep-alive connections, so close() leaves no socket behind. */
export class DeliveryClient {
	private readonly agent: Agent;
	/** Origins the service reaches somewhere else than their address says (route()). */
	private readonly routes = new Map<string, string>();

	constructor(
		/** `ca`: a certificate to trust (a self-signed receiver); `insecure`: skip certificate verification. */
		tls: { ca?: string | Buffer; insecure?: boolean },
		private readonly timeoutMs = DELIVERY_TIMEOUT_MS,
	) {
		this.agent = new Agent({ connect: { ca: tls.ca, rejectUnauthorized: !tls.insecure } });
	}

	/**
	 * Deliveries to `from` (an origin: scheme, host and port) go to `to` instead, as the real service reaches a public
	 * address through DNS and an ingress that n8n, behind them, may not reach itself (tests of that topology).
	 */
	route(from: string, to: string): void {
		this.routes.set(new URL(from).origin, new URL(to).origin);
	}

	/** Never rejects: a non-2xx answer or a network error comes back in the result. */
	async post(address: string, body: unknown, headers: Record<string, string>, timeoutMs = this.timeoutMs): Promise<PostResult> {
		let status: number | null = null;
		const origin = URL.canParse(address) ? new URL(address).origin : undefined;
		const routed = origin && this.routes.get(origin);
		const url = routed ? routed + address.slice(origin.length) : address;
		try {
			// One turn of the event loop first, so a connection the receiver closed is seen closed before it is used again.
			// This process may have been busy longer than the receiver keeps an idle connection (n8n keeps one 5 s):
			// matching 20 blocks against 10,000 filters takes seconds, in one go (bench part 9f).
			// Undici would then write the POST onto the closed connection and fail it ("other side closed").
			// The real service matches blocks apart from the process that posts them, so that failure is ours alone.
			await nextTurn();
			const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
			const response = await request(url, { method: 'POST', headers, body: JSON.stringify(body), dispatcher: this.agent, ...timeouts });
			status = response.statusCode;
			await response.body.dump();
			return status >= 200 && status < 300 ? { status } : { status, error: `Receiver answered ${status}` };
		} catch (error) {
			const { code, message } = error as { code?: string; message?: string };
			if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return { status, error: `${NO_ANSWER} ${timeoutMs} ms` };
			return { status, error: code && !String(message).includes(code) ? `${code}: ${message}` : String(message ?? error) };
		}
	}

	/** Fails the POSTs in flight (they resolve as failed) and closes the connections. */
	async close(): Promise<void> {
		await this.agent.destroy();
	}
}
