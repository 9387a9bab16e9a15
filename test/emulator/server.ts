/**
 * The emulator: a loopback HTTP server keeping the hooks-service contract, plus
 * the test-side handle (inject blocks, inspect requests and deliveries, faults).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

import { API_ROUTES, apiPath, type ApiContext } from './api';
import { toBlock, type Block, type BlockInput } from './chain';
import {
	CONTROL_PREFIX,
	CONTROL_ROUTES,
	isLoopback,
	type ControlContext,
	type EmulatorState,
} from './control';
import { buildPayload, deliveryHeaders, DeliveryClient } from './delivery';
import {
	errorBody,
	errorReply,
	HttpError,
	jsonBody,
	readBody,
	recordedBody,
	route,
	send,
	type RawBody,
	type Reply,
} from './http';
import { Faults, RateLimiter, type Fault, type RateDecision } from './limits';
import { recordEvaluation, recordOccurrence, Store, type Account } from './store';
import type {
	ConfigPatch,
	DeliveryReport,
	Direction,
	Emulator,
	EmulatorOptions,
	FaultOptions,
	HookRecord,
	Network,
	RateLimit,
	RecordedRequest,
	SecretHeader,
} from './types';
import type { DefinitionRules } from './validation';

const API_BODY_LIMIT = 1024 * 1024;
const CONTROL_BODY_LIMIT = 64 * 1024 * 1024;

interface Config {
	rateLimit: RateLimit | null;
	retryAfterSeconds?: number;
	latencyMs: number;
	maxHooksPerAccount: number;
	secretHeader: SecretHeader;
}

/** One API request on its way through the pipeline. */
interface ApiCall {
	request: IncomingMessage;
	url: URL;
	raw: RawBody;
	apiKey: string | undefined;
	account: Account | undefined;
	rate: RateDecision | null;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function singleHeader(request: IncomingMessage, name: string): string | undefined {
	const value = request.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

class EmulatorServer implements Emulator, ApiContext, ControlContext {
	url = '';
	origin = '';
	port = 0;
	readonly requests: RecordedRequest[] = [];
	readonly deliveries: DeliveryReport[] = [];
	readonly store: Store;
	private readonly network: Network;
	private readonly allowHttpWebhooks: boolean;
	private config: Config;
	private readonly limiter = new RateLimiter(() => this.config.rateLimit);
	private readonly faults = new Faults();
	private readonly client: DeliveryClient;
	private readonly background = new Set<Promise<unknown>>();
	private readonly server = http.createServer(
		(request, response) => void this.handle(request, response),
	);

	constructor(options: EmulatorOptions) {
		this.network = options.network ?? 'testnet';
		this.allowHttpWebhooks = options.allowHttpWebhooks ?? false;
		this.store = new Store(options.accounts ?? [{ apiKey: 'test-api-key' }]);
		this.client = new DeliveryClient({
			ca: options.deliveryCa,
			insecure: options.deliveryInsecure,
		});
		this.config = {
			rateLimit:
				options.rateLimit === undefined ? { limit: 1000, windowMs: 60_000 } : options.rateLimit,
			retryAfterSeconds: options.retryAfterSeconds,
			latencyMs: options.latencyMs ?? 0,
			maxHooksPerAccount: options.maxHooksPerAccount ?? 1000,
			secretHeader: options.secretHeader ?? 'x-hook-consumer-secret',
		};
	}

	async listen(host: string, port: number): Promise<void> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, host, () => resolve());
		});
		this.port = (this.server.address() as AddressInfo).port;
		const hostInUrl = host.includes(':') ? `[${host}]` : host;
		this.origin = `http://${hostInUrl}:${this.port}`;
		this.url = `${this.origin}/hooks/v1`;
	}

	async close(): Promise<void> {
		this.client.close();
		await this.settled();
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}

	// -- test-side handle -----------------------------------------------------

	hooks(apiKey?: string): HookRecord[] {
		const accounts =
			apiKey === undefined ? this.store.allAccounts() : [this.store.accountOrDefault(apiKey)];
		return accounts.flatMap((account) =>
			[...account.hooks.values()].map((hook) => structuredClone(hook)),
		);
	}

	clearRequests(): void {
		this.requests.length = 0;
	}

	reset(): void {
		this.store.reset();
		this.clearRequests();
		this.deliveries.length = 0;
		this.faults.clear();
		this.limiter.clear();
	}

	configure(patch: ConfigPatch): void {
		const restoreRetryAfter = 'retryAfterSeconds' in patch && patch.retryAfterSeconds === undefined;
		this.config = { ...this.config, ...withoutUndefined(patch) };
		if (restoreRetryAfter) delete this.config.retryAfterSeconds;
	}

	currentConfig(): ConfigPatch {
		return { ...this.config };
	}

	failNext(count: number, status = 429, opts: FaultOptions = {}): void {
		this.faults.arm(count, { status, ...opts });
	}

	consumerSecret(apiKey?: string): string | null {
		return this.store.accountOrDefault(apiKey).secret;
	}

	injectBlock(input: BlockInput | Block): Promise<DeliveryReport[]> {
		const block = toBlock(input);
		this.store.putBlock(block);
		return this.dispatch(block, 'apply');
	}

	injectRollback(input: BlockInput | Block): Promise<DeliveryReport[]> {
		const block = toBlock(input);
		this.store.dropBlock(block);
		return this.dispatch(block, 'rollback');
	}

	async settled(): Promise<void> {
		while (this.background.size > 0) await Promise.all([...this.background]);
	}

	state(): EmulatorState {
		return {
			network: this.network,
			url: this.url,
			accounts: this.store
				.allAccounts()
				.map((account) => ({ apiKey: account.apiKey, hooks: this.hooks(account.apiKey) })),
			blockHeights: this.store.blockHeights(),
			deliveries: this.deliveries.length,
			requests: this.requests.length,
		};
	}

	// -- ApiContext -------------------------------------------------------------

	definitionRules(): DefinitionRules {
		return { network: this.network, allowHttpWebhooks: this.allowHttpWebhooks };
	}

	maxHooksPerAccount(): number {
		return this.config.maxHooksPerAccount;
	}

	evaluateLater(account: Account, hook: HookRecord, block: Block): void {
		const task = delay(0).then(() => this.deliver(account, hook, block, 'apply'));
		this.background.add(task);
		void task.finally(() => this.background.delete(task));
	}

	// -- deliveries ---------------------------------------------------------------

	private async dispatch(block: Block, direction: Direction): Promise<DeliveryReport[]> {
		const targets = this.store
			.allAccounts()
			.flatMap((account) => [...account.hooks.values()].map((hook) => ({ account, hook })))
			.filter(({ hook }) => hook.status.enabled && hook.definition.network === this.network);
		const reports = await Promise.all(
			targets.map(({ account, hook }) => this.deliver(account, hook, block, direction)),
		);
		return reports.filter((report): report is DeliveryReport => report !== null);
	}

	/** Evaluates one block for one hook and POSTs the matches; null when nothing matched. */
	private async deliver(
		account: Account,
		hook: HookRecord,
		block: Block,
		direction: Direction,
	): Promise<DeliveryReport | null> {
		const height = block.block_identifier.index;
		recordEvaluation(hook, height, Date.now());
		const payload = buildPayload(hook, block, this.network, direction);
		if (!payload) return null;
		const url = hook.definition.action.url;
		const result = await this.client.post(
			url,
			payload,
			deliveryHeaders(account.secret, this.config.secretHeader),
		);
		const report: DeliveryReport = {
			hookUuid: hook.uuid,
			url,
			...result,
			payload,
			at: Date.now(),
			blockHeight: height,
			direction,
		};
		this.deliveries.push(report);
		if (result.error === undefined) recordOccurrence(hook, height, report.at);
		return report;
	}

	// -- HTTP -----------------------------------------------------------------------

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		try {
			const url = new URL(request.url ?? '/', 'http://emulator.invalid');
			const isControl =
				url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`);
			send(
				response,
				isControl ? await this.answerControl(request, url) : await this.answerApi(request, url),
			);
		} catch (error) {
			const details = error instanceof Error ? error.message : String(error);
			if (!response.headersSent) send(response, { status: 500, body: errorBody(500, details) });
		}
	}

	private async answerControl(request: IncomingMessage, url: URL): Promise<Reply> {
		const raw = await readBody(request, CONTROL_BODY_LIMIT);
		try {
			if (!isLoopback(request.socket.remoteAddress))
				throw new HttpError(403, 'Control endpoints answer loopback callers only');
			const found = route(
				CONTROL_ROUTES,
				request.method ?? 'GET',
				url.pathname.slice(CONTROL_PREFIX.length),
			);
			if (!found) throw new HttpError(404, `No control endpoint at ${url.pathname}`);
			const body = jsonBody(request, raw, CONTROL_BODY_LIMIT);
			return await found.handler(this, { query: url.searchParams, body });
		} catch (error) {
			if (error instanceof HttpError) return errorReply(error);
			throw error;
		}
	}

	private async answerApi(request: IncomingMessage, url: URL): Promise<Reply> {
		const raw = await readBody(request, API_BODY_LIMIT);
		const record: RecordedRequest = {
			method: request.method ?? 'GET',
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			headers: { ...request.headers },
			body: recordedBody(raw),
			status: 0,
			at: Date.now(),
		};
		this.requests.push(record);
		if (this.config.latencyMs > 0) await delay(this.config.latencyMs);
		const apiKey = singleHeader(request, 'x-api-key');
		const account = this.store.account(apiKey);
		// Unknown callers share one budget per address, so 401s are rate limited too.
		const bucket = account ? `key:${account.apiKey}` : `address:${request.socket.remoteAddress}`;
		const rate = this.limiter.take(bucket, Date.now());
		const reply = this.serveApi({ request, url, raw, apiKey, account, rate });
		record.status = reply.status;
		return { ...reply, headers: { ...rate?.headers, ...reply.headers } };
	}

	private serveApi(call: ApiCall): Reply {
		const fault = this.faults.take({
			method: call.request.method ?? 'GET',
			path: call.url.pathname,
		});
		if (fault) return this.faultReply(fault, call.rate);
		try {
			if (call.rate?.limited) throw this.tooManyRequests(call.rate);
			if (!call.account) {
				throw new HttpError(
					401,
					call.apiKey === undefined ? 'Missing x-api-key header' : 'Invalid API key',
				);
			}
			const path = apiPath(call.url.pathname);
			const found = path === null ? null : route(API_ROUTES, call.request.method ?? 'GET', path);
			if (path === null || !found) throw new HttpError(404, `No endpoint at ${call.url.pathname}`);
			const body = jsonBody(call.request, call.raw, API_BODY_LIMIT);
			return found.handler(
				this,
				{ path, query: call.url.searchParams, body, account: call.account },
				found.params,
			);
		} catch (error) {
			if (error instanceof HttpError) return errorReply(error);
			throw error;
		}
	}

	private retryAfter(rate: RateDecision | null): string {
		return String(this.config.retryAfterSeconds ?? rate?.secondsToReset ?? 1);
	}

	private tooManyRequests(rate: RateDecision): HttpError {
		const { limit, windowMs } = this.config.rateLimit ?? { limit: 0, windowMs: 0 };
		return new HttpError(429, `Rate limit of ${limit} requests per ${windowMs} ms exceeded`, {
			'retry-after': this.retryAfter(rate),
		});
	}

	private faultReply(fault: Fault, rate: RateDecision | null): Reply {
		const retryAfter =
			fault.retryAfter === undefined && fault.status === 429
				? this.retryAfter(rate)
				: fault.retryAfter;
		return {
			status: fault.status,
			body: fault.body === undefined ? errorBody(fault.status, 'Injected fault') : fault.body,
			headers: typeof retryAfter === 'string' ? { 'retry-after': retryAfter } : {},
		};
	}
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
	const emulator = new EmulatorServer(options);
	await emulator.listen(options.host ?? '127.0.0.1', options.port ?? 0);
	return emulator;
}
