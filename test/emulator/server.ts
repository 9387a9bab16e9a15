/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The emulator: a loopback HTTP server keeping the hooks-service contract, plus the test-side
 * handle (inject blocks, inspect requests and deliveries, faults).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

import { API_ROUTES, apiPath } from './api';
import { toBlock, type Block, type BlockInput } from './chain';
import { CONTROL_PREFIX, CONTROL_ROUTES, isLoopback, type EmulatorState } from './control';
import { buildPayload, buildReorgPayload, DELIVERY_TIMEOUT_MS, deliveryHeaders, DeliveryClient } from './delivery';
import { errorBody, HttpError, jsonBody, readBody, route, send, type Reply } from './http';
import { Faults, RateLimiter, requestMatches, type Fault, type RateDecision } from './limits';
import { interrupt, isDelivering, recordDeliveryOutcome, recordEvaluation, recordOccurrence, Store, type Account } from './store';
import { HookStreams, type Meta } from './stream';
import type { ConfigPatch, DeliveryPayload, DeliveryReport, Direction, EmulatorOptions, FaultOptions, HookRecord, RateLimit, RecordedRequest, RequestMatch } from './types';
import type { DefinitionRules } from './validation';

const API_BODY_LIMIT = 1024 * 1024;
/** How long close() waits for the streams to settle. */
const CLOSE_SETTLE_MS = 20_000;
const CONTROL_BODY_LIMIT = 64 * 1024 * 1024;

/** A dropped answer: none is sent ('hang'), or the connection is destroyed ('reset'). */
type Dropped = { drop: 'hang' | 'reset' };

type Config = Required<Omit<ConfigPatch, 'retryAfterSeconds' | 'rateLimit' | 'maxFilters'>> & { rateLimit: RateLimit | null; retryAfterSeconds?: number; maxFilters: number | null };

/** A delivery fault: the next `count` deliveries (to one hook, or any) lose their answer, or are dropped without a word. */
interface DeliveryFault {
	count: number;
	hookUuid?: string;
	/** Only deliveries that roll nothing back (a reorganisation's rollback cannot be replayed: evaluate sends what is on the chain). */
	appliesOnly?: boolean;
}

/** Uses up one armed fault that applies to `hook` and `payload`; whether there was one. */
function takeFault(faults: DeliveryFault[], hook: HookRecord, payload?: DeliveryPayload): boolean {
	const fault = faults.find(
		(candidate) => (candidate.hookUuid === undefined || candidate.hookUuid === hook.uuid) && !(candidate.appliesOnly && (payload?.event.rollback.length ?? 0) > 0),
	);
	if (!fault) return false;
	if (--fault.count <= 0) faults.splice(faults.indexOf(fault), 1);
	return true;
}

/** The handler's reply, or the answer for the HttpError it threw. */
async function replyOf(answer: () => Reply | Promise<Reply>): Promise<Reply> {
	try {
		return await answer();
	} catch (error) {
		if (error instanceof HttpError) return error.reply;
		throw error;
	}
}

/** What a recorded request shows as its body: the JSON, else the text; undefined when empty. */
function recordedBody(text: string): unknown {
	if (text === '') return undefined;
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return text;
	}
}

/** The running emulator, as startEmulator() hands it to a test. */
export class Emulator {
	/** Base address ending in '/hooks/v1'. */
	url = '';
	/** 'http://127.0.0.1:PORT'. */
	origin = '';
	port = 0;
	/** Every API request received, in arrival order; control endpoints excluded. */
	readonly requests: RecordedRequest[] = [];
	readonly deliveries: DeliveryReport[] = [];
	readonly store: Store;
	private readonly fixedRules: Omit<DefinitionRules, 'maxFilters'>;
	private readonly config: Config;
	private readonly limiter = new RateLimiter(() => this.config.rateLimit);
	private readonly faults = new Faults();
	private readonly actions: Array<{ match: RequestMatch; skip: number; when: 'before' | 'after'; action: () => Promise<unknown> }> = [];
	private readonly client: DeliveryClient;
	private readonly background = new Set<Promise<unknown>>();
	private readonly lostAnswers: DeliveryFault[] = [];
	private readonly silentDrops: DeliveryFault[] = [];
	/** Hooks the service stopped evaluating while they show as streaming (stallHook). */
	private readonly stalled = new Set<string>();
	private readonly streams: HookStreams = new HookStreams({
		post: (hook, payload) => this.client.post(hook.definition.action.url, payload, deliveryHeaders(this.accountOf(hook).secret, this.config.secretHeader), this.config.deliveryTimeoutMs),
		takeLostAnswer: (hook) => takeFault(this.lostAnswers, hook),
		takeSilentDrop: (hook, payload) => takeFault(this.silentDrops, hook, payload),
		recordAttempt: (hook, delivered) => recordDeliveryOutcome(hook, delivered, this.config.interruptAfterFailures),
		report: (report) => this.deliveries.push(report),
		settings: () => ({ retryDelaysMs: this.config.retryDelaysMs }),
	});
	private readonly server = http.createServer((request, response) => void this.handle(request, response));

	constructor(options: EmulatorOptions) {
		this.fixedRules = { network: options.network ?? 'testnet', allowHttpWebhooks: options.allowHttpWebhooks ?? false };
		this.store = new Store(options.accounts ?? [{ apiKey: 'test-api-key' }]);
		this.client = new DeliveryClient({ ca: options.deliveryCa, insecure: options.deliveryInsecure });
		this.config = {
			rateLimit: options.rateLimit === undefined ? { limit: 1000, windowMs: 60_000 } : options.rateLimit,
			retryAfterSeconds: options.retryAfterSeconds,
			latencyMs: options.latencyMs ?? 0,
			maxHooksPerAccount: options.maxHooksPerAccount ?? 1000,
			maxRequestBytes: options.maxRequestBytes ?? API_BODY_LIMIT,
			maxFilters: options.maxFilters ?? null,
			interruptAfterFailures: options.interruptAfterFailures ?? 3,
			secretHeader: options.secretHeader ?? 'x-hook-consumer-secret',
			retryDelaysMs: options.retryDelaysMs ?? [],
			deliveryTimeoutMs: options.deliveryTimeoutMs ?? DELIVERY_TIMEOUT_MS,
			nftIds: options.nftIds ?? 'repr',
		};
	}

	async listen(host: string, port: number): Promise<void> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, host, () => resolve());
		});
		this.port = (this.server.address() as AddressInfo).port;
		this.origin = `http://${host.includes(':') ? `[${host}]` : host}:${this.port}`;
		this.url = `${this.origin}/hooks/v1`;
	}

	async close(): Promise<void> {
		await this.client.close();
		// Every POST now fails at once; what streams still hold (retries with back-off, hooks a test left failing) is
		// given up after a while rather than waited out.
		await Promise.race([this.settled(), delay(CLOSE_SETTLE_MS)]);
		await new Promise<void>((resolve) => {
			this.server.close(() => resolve());
			this.server.closeAllConnections();
		});
	}

	// -- test-side handle -----------------------------------------------------

	/** Current hooks (deep copies), in creation order; of every account when apiKey is omitted. */
	hooks(apiKey?: string): HookRecord[] {
		const accounts = apiKey === undefined ? [...this.store.accounts.values()] : [this.store.accountOrDefault(apiKey)];
		return accounts.flatMap((account) => [...account.hooks.values()].map((hook) => structuredClone(hook)));
	}

	clearRequests(): void {
		this.requests.length = 0;
	}

	/** Drops hooks, blocks, requests, deliveries, faults, armed actions and rate-limit counters; keeps accounts, secrets and config. */
	reset(): void {
		this.store.reset();
		this.clearRequests();
		this.deliveries.length = 0;
		this.lostAnswers.length = 0;
		this.silentDrops.length = 0;
		this.stalled.clear();
		this.streams.clear();
		this.faults.clear();
		this.actions.length = 0;
		this.limiter.clear();
	}

	/** Applies the keys given; `retryAfterSeconds: undefined` restores the computed retry-after. */
	configure(patch: ConfigPatch): void {
		for (const [key, value] of Object.entries(patch)) if (value !== undefined) Object.assign(this.config, { [key]: value });
		if ('retryAfterSeconds' in patch && patch.retryAfterSeconds === undefined) delete this.config.retryAfterSeconds;
	}

	currentConfig(): ConfigPatch {
		return { ...this.config };
	}

	/** The next `count` API requests (that match opts.match) are answered with `status` (default 429) instead of being served. */
	failNext(count: number, status = 429, opts: FaultOptions = {}): void {
		this.faults.arm(count, { status, ...opts });
	}

	/**
	 * Runs `action` (e.g. a block mined) before serving the first API request that matches, past `skip` others that
	 * match: what happens at the service between two requests of one client's sequence. Once; `reset()` drops it.
	 */
	beforeServing(match: RequestMatch & { skip?: number }, action: () => Promise<unknown>): void {
		this.actions.push({ match, skip: match.skip ?? 0, when: 'before', action });
	}

	/**
	 * Runs `action` once the first API request that matches (past `skip` others) has been served, before its answer
	 * leaves: what happens at the service just after a request took effect. The answer is as the request left things.
	 */
	afterServing(match: RequestMatch & { skip?: number }, action: () => Promise<unknown>): void {
		this.actions.push({ match, skip: match.skip ?? 0, when: 'after', action });
	}

	/** Drops the actions armed (beforeServing, afterServing, mineAt) that have not run: a sequence that ended before their request. */
	disarm(): void {
		this.actions.length = 0;
	}

	/**
	 * A block mined at the service just before (or after) it serves the API request `match` picks (past `skip`
	 * others that match): the hooks delivering then evaluate it, without waiting for the deliveries, which
	 * `settled()` and `deliveries` show. What a test places at every point of a client's sequence of requests.
	 */
	mineAt(match: RequestMatch & { skip?: number }, when: 'before' | 'after', input: BlockInput | Block): void {
		const mine = async () => void this.injectBlock(input).catch(() => undefined);
		if (when === 'before') this.beforeServing(match, mine);
		else this.afterServing(match, mine);
	}

	/**
	 * The next `count` API requests (that match opts.match) get no answer: `hang` leaves the connection open,
	 * `reset` destroys it. With `afterServing` the request is served first, as when a service does the work and
	 * its answer is lost on the way back.
	 */
	dropNext(count: number, drop: 'hang' | 'reset', opts: Omit<FaultOptions, 'drop' | 'retryAfter' | 'body'> = {}): void {
		this.faults.arm(count, { status: 0, ...opts, drop });
	}

	/**
	 * The next `count` deliveries (to the hook given, else to any) reach the receiver and are answered, but the
	 * answer is treated as lost, as when it never made it back: the attempt counts as failed and the same payload
	 * is sent again after the back-off (a duplicate at the receiver). Needs `retryDelaysMs` to resend.
	 */
	loseNextAnswers(count: number, opts: { hookUuid?: string } = {}): void {
		if (count > 0) this.lostAnswers.push({ count, hookUuid: opts.hookUuid });
	}

	/** Answers still to be lost (loseNextAnswers), armed for any hook or for the one given. */
	lostAnswersPending(hookUuid?: string): number {
		return this.lostAnswers.filter((fault) => fault.hookUuid === undefined || fault.hookUuid === hookUuid).reduce((sum, fault) => sum + fault.count, 0);
	}

	/**
	 * The next `count` deliveries (to the hook given, else to any) are dropped without a word, as the real
	 * service was seen to do (hirosystems/chainhook#739): the match is counted in the hook's status
	 * (`occurrence_count`, `last_occurrence_*`) but nothing is POSTed, retried or reported as failed, and
	 * the hook streams on.
	 */
	dropNextDeliveries(count: number, opts: { hookUuid?: string; appliesOnly?: boolean } = {}): void {
		if (count > 0) this.silentDrops.push({ count, hookUuid: opts.hookUuid, appliesOnly: opts.appliesOnly });
	}

	/** The account's consumer secret (first account when apiKey is omitted); null when deleted; throws on an unknown key. */
	consumerSecret(apiKey?: string): string | null {
		return this.store.accountOrDefault(apiKey).secret;
	}

	/** Sets the account's consumer secret (null: none), as a rotation or deletion at the service would. */
	setConsumerSecret(secret: string | null, apiKey?: string): void {
		this.store.accountOrDefault(apiKey).secret = secret;
	}

	/**
	 * Deliveries to the origin `from` (a public address: n8n's WEBHOOK_URL) are POSTed to `to` (where n8n listens), as
	 * the real service reaches n8n through DNS and an ingress that n8n itself may not reach from inside.
	 */
	routeDeliveries(from: string, to: string): void {
		this.client.route(from, to);
	}

	/**
	 * A hook the service silently stops evaluating (hirosystems/chainhook#720): it shows as enabled and streaming, its
	 * counters stand still, nothing is delivered; `false` lets it run again.
	 */
	stallHook(uuid: string, stalled = true): void {
		if (stalled) this.stalled.add(uuid);
		else this.stalled.delete(uuid);
	}

	/** The service interrupting the hook (as after failed deliveries): `enabled` stays true, nothing is delivered until it is enabled again. */
	interruptHook(uuid: string): void {
		const hook = [...this.store.accounts.values()].map((account) => account.hooks.get(uuid)).find((found) => found !== undefined);
		if (!hook) throw new Error(`no hook ${uuid}`);
		interrupt(hook);
	}

	/**
	 * Stores the block (by height) and queues it on the stream of every delivering (enabled, not interrupted)
	 * matching hook; resolves with each hook's final report once those deliveries are settled (retries included).
	 */
	injectBlock(input: BlockInput | Block): Promise<DeliveryReport[]> {
		const block = toBlock(input);
		this.store.putBlock(block);
		return this.dispatch(block, 'apply');
	}

	/** Delivers the block in `rollback`, and drops it from the store when it is the stored block of its height. */
	injectRollback(input: BlockInput | Block): Promise<DeliveryReport[]> {
		const block = toBlock(input);
		this.store.dropBlock(block);
		return this.dispatch(block, 'rollback');
	}

	/**
	 * A reorganisation, as the service sends it: `rollback` the undone blocks (tip first), `apply` the new ones
	 * (ascending), in ONE payload per delivering hook, each list cut down to the blocks with matching
	 * transactions; nothing to a hook that matches in neither. The store forgets the undone blocks and keeps
	 * the new ones. A fork that becomes canonical again is a reorg whose `apply` holds its blocks again.
	 */
	injectReorg(rollback: Array<BlockInput | Block>, apply: Array<BlockInput | Block>): Promise<DeliveryReport[]> {
		const undone = rollback.map(toBlock);
		const applied = apply.map(toBlock);
		for (const block of undone) this.store.dropBlock(block);
		for (const block of applied) this.store.putBlock(block);
		const tip = applied.at(-1) ?? undone[0];
		const meta: Meta = { blockHeight: tip?.block_identifier.index ?? 0, direction: 'reorg' };
		const sends = this.delivering().map(({ hook }) => {
			for (const block of applied) recordEvaluation(hook, block.block_identifier.index, Date.now());
			const payload = buildReorgPayload(hook, undone, applied, this.rules.network, this.config.nftIds);
			for (const block of payload?.event.apply ?? []) recordOccurrence(hook, block.block_identifier.index, Date.now());
			return payload ? this.streams.enqueue(hook, payload, meta) : null;
		});
		return this.tracked(Promise.all(sends).then((reports) => reports.filter((report): report is DeliveryReport => report !== null)));
	}

	/** Resolves once the background work started by API calls (evaluate) and every hook's stream have finished. */
	async settled(): Promise<void> {
		while (this.background.size > 0) await Promise.all([...this.background]);
		await this.streams.drained();
	}

	state(): EmulatorState {
		return {
			network: this.rules.network,
			url: this.url,
			accounts: [...this.store.accounts.values()].map(({ apiKey }) => ({ apiKey, hooks: this.hooks(apiKey) })),
			blockHeights: this.store.blockHeights(),
			deliveries: this.deliveries.length,
			requests: this.requests.length,
		};
	}

	// -- for the API handlers, and deliveries ---------------------------------------

	/** What a definition must keep to: the network served, https actions, the filter limit configured now. */
	get rules(): DefinitionRules {
		return { ...this.fixedRules, maxFilters: this.config.maxFilters };
	}

	maxHooksPerAccount(): number {
		return this.config.maxHooksPerAccount;
	}

	/** Evaluates the block against this one hook after the answer has gone, queuing a match on its stream. */
	evaluateLater(_account: Account, hook: HookRecord, block: Block): void {
		this.tracked(delay(0).then(() => this.deliver(hook, block, 'apply', true)));
	}

	/** Evaluates a height the emulator holds no block of (below the tests' first): counted, matching nothing. */
	evaluateEmpty(hook: HookRecord, height: number): void {
		this.tracked(delay(0).then(() => recordEvaluation(hook, height, Date.now())));
	}

	private tracked<T>(task: Promise<T>): Promise<T> {
		this.background.add(task);
		void task.finally(() => this.background.delete(task)).catch(() => undefined);
		return task;
	}

	/** The hooks blocks are delivered to now (enabled, not interrupted, this network). */
	private delivering(): Array<{ account: Account; hook: HookRecord }> {
		return [...this.store.accounts.values()].flatMap((account) =>
			[...account.hooks.values()]
				.filter((hook) => isDelivering(hook) && !this.stalled.has(hook.uuid) && hook.definition.network === this.rules.network)
				.map((hook) => ({ account, hook })),
		);
	}

	private accountOf(hook: HookRecord): Account {
		const account = [...this.store.accounts.values()].find((candidate) => candidate.hooks.get(hook.uuid) === hook);
		// A hook deleted while deliveries were queued: its account is the one that held it; the first is as good for the header.
		return account ?? this.store.accountOrDefault();
	}

	private async dispatch(block: Block, direction: Direction): Promise<DeliveryReport[]> {
		const reports = await this.tracked(Promise.all(this.delivering().map(({ hook }) => this.deliver(hook, block, direction))));
		return reports.filter((report): report is DeliveryReport => report !== null);
	}

	/** Evaluates one block for one hook and queues the matches on its stream; null when nothing matched. */
	private deliver(hook: HookRecord, block: Block, direction: Direction, evaluation = false): Promise<DeliveryReport | null> {
		const blockHeight = block.block_identifier.index;
		recordEvaluation(hook, blockHeight, Date.now());
		const payload = buildPayload(hook, block, this.rules.network, direction, this.config.nftIds);
		if (!payload) return Promise.resolve(null);
		// An occurrence is a match, counted when the block is evaluated, whether or not its delivery then goes through.
		if (direction === 'apply') recordOccurrence(hook, blockHeight, Date.now());
		return this.streams.enqueue(hook, payload, { blockHeight, direction }, evaluation);
	}

	// -- HTTP -------------------------------------------------------------------

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		try {
			const url = new URL(request.url ?? '/', 'http://emulator.invalid');
			const isControl = url.pathname === CONTROL_PREFIX || url.pathname.startsWith(`${CONTROL_PREFIX}/`);
			const answer = await (isControl ? this.answerControl(request, url) : this.answerApi(request, url));
			if ('drop' in answer) {
				// A hung answer is ended by the client giving up, or by close().
				if (answer.drop === 'reset') request.socket.destroy();
				return;
			}
			send(response, answer);
		} catch (error) {
			const details = error instanceof Error ? error.message : String(error);
			if (!response.headersSent) send(response, { status: 500, body: errorBody(500, details) });
		}
	}

	private async answerControl(request: IncomingMessage, url: URL): Promise<Reply> {
		const raw = await readBody(request, CONTROL_BODY_LIMIT);
		return await replyOf(async () => {
			if (!isLoopback(request.socket.remoteAddress)) throw new HttpError(403, 'Control endpoints answer loopback callers only');
			const found = route(CONTROL_ROUTES, request.method ?? 'GET', url.pathname.slice(CONTROL_PREFIX.length));
			if (!found) throw new HttpError(404, `No control endpoint at ${url.pathname}`);
			return await found.handler(this, { query: url.searchParams, body: jsonBody(request, raw, CONTROL_BODY_LIMIT) });
		});
	}

	private async answerApi(request: IncomingMessage, url: URL): Promise<Reply | Dropped> {
		const limit = this.config.maxRequestBytes;
		const raw = await readBody(request, limit);
		const method = request.method ?? 'GET';
		const record: RecordedRequest = {
			method,
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			headers: { ...request.headers },
			body: recordedBody(raw.text),
			status: 0,
			at: Date.now(),
		};
		this.requests.push(record);
		await this.armedAction('before', method, url.pathname);
		if (this.config.latencyMs > 0) await delay(this.config.latencyMs);
		const header = request.headers['x-api-key'];
		const apiKey = Array.isArray(header) ? header[0] : header;
		const account = apiKey === undefined ? undefined : this.store.accounts.get(apiKey);
		// Unknown callers share one budget per address, so 401s are rate limited too.
		const rate = this.limiter.take(account ? `key:${account.apiKey}` : `address:${request.socket.remoteAddress}`, Date.now());
		const fault = this.faults.take({ method, path: url.pathname });
		if (fault?.drop && !fault.afterServing) return { drop: fault.drop };
		const reply = fault && !fault.drop
			? this.faultReply(fault, rate)
			: await replyOf(() => {
					if (rate?.limited) {
						const { limit, windowMs } = this.config.rateLimit ?? { limit: 0, windowMs: 0 };
						throw new HttpError(429, `Rate limit of ${limit} requests per ${windowMs} ms exceeded`, { 'retry-after': this.retryAfter(rate) });
					}
					if (!account) throw new HttpError(401, apiKey === undefined ? 'Missing x-api-key header' : 'Invalid API key');
					const path = apiPath(url.pathname);
					const found = path === null ? null : route(API_ROUTES, method, path);
					if (!found) throw new HttpError(404, `No endpoint at ${url.pathname}`);
					return found.handler(this, { query: url.searchParams, body: jsonBody(request, raw, limit), account }, found.params);
				});
		if (this.armed('after', method, url.pathname)) {
			// The answer as the request left things, not as the action leaves them.
			if (reply.body !== undefined) reply.body = JSON.parse(JSON.stringify(reply.body));
			await this.armedAction('after', method, url.pathname);
		}
		if (fault?.drop) return { drop: fault.drop };
		record.status = reply.status;
		return { ...reply, headers: { ...rate?.headers, ...reply.headers } };
	}

	/** The first action armed (beforeServing, afterServing) for this point of this request. */
	private armed(when: 'before' | 'after', method: string, path: string) {
		return this.actions.find((armed) => armed.when === when && requestMatches(armed.match, method, path));
	}

	/** The action armed for this point of this request, run and dropped once its `skip` is spent. */
	private async armedAction(when: 'before' | 'after', method: string, path: string): Promise<void> {
		const armed = this.armed(when, method, path);
		if (!armed) return;
		if (armed.skip-- > 0) return;
		this.actions.splice(this.actions.indexOf(armed), 1);
		await armed.action();
	}

	private retryAfter(rate: RateDecision | null): string {
		return String(this.config.retryAfterSeconds ?? rate?.secondsToReset ?? 1);
	}

	private faultReply(fault: Fault, rate: RateDecision | null): Reply {
		const retryAfter = fault.retryAfter === undefined && fault.status === 429 ? this.retryAfter(rate) : fault.retryAfter;
		return {
			status: fault.status,
			body: fault.body === undefined ? errorBody(fault.status, 'Injected fault') : fault.body,
			headers: typeof retryAfter === 'string' ? { 'retry-after': retryAfter } : {},
		};
	}
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
	const emulator = new Emulator(options);
	await emulator.listen(options.host ?? '127.0.0.1', options.port ?? 0);
	return emulator;
}
