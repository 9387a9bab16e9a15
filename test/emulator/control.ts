/* eslint-disable @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Test control over HTTP, for tests and tools in another process (an n8n run, the CLI):
 * no API key, loopback callers only, not recorded, not rate limited.
 */
import { HttpError, type Reply, type Route } from './http';
import type { Emulator } from './server';
import type { HookRecord, Network } from './types';
import { parseBlock, parseConfigPatch, parseFault, parseDeliveryFaults, parseReorg } from './validation';

export const CONTROL_PREFIX = '/_emulator';

export interface EmulatorState {
	network: Network;
	url: string;
	accounts: Array<{ apiKey: string; hooks: HookRecord[] }>;
	blockHeights: number[];
	deliveries: number;
	requests: number;
}

type Handler = (context: Emulator, request: { query: URLSearchParams; body: unknown }) => Reply | Promise<Reply>;

const ok = (body: unknown): Reply => ({ status: 200, body });
const NO_CONTENT: Reply = { status: 204 };

const injectBlock: Handler = async (context, { query, body }) => {
	const block = parseBlock(body);
	const rollback = ['1', 'true'].includes(query.get('rollback') ?? '');
	return ok({ deliveries: await (rollback ? context.injectRollback(block) : context.injectBlock(block)) });
};

const injectReorg: Handler = async (context, { body }) => {
	const { rollback, apply } = parseReorg(body);
	return ok({ deliveries: await context.injectReorg(rollback, apply) });
};

const deliveryFaults: Handler = (context, { body }) => {
	const { loseAnswers, dropDeliveries, appliesOnly, hookUuid } = parseDeliveryFaults(body);
	context.loseNextAnswers(loseAnswers ?? 0, { hookUuid });
	context.dropNextDeliveries(dropDeliveries ?? 0, { hookUuid, appliesOnly });
	return NO_CONTENT;
};

const armFaults: Handler = (context, { body }) => {
	const { count, status, ...options } = parseFault(body);
	context.failNext(count, status, options);
	return NO_CONTENT;
};

const secret: Handler = (context, { query }) => {
	try {
		return ok({ secret: context.consumerSecret(query.get('apiKey') ?? undefined) });
	} catch {
		throw new HttpError(404, 'No account with that API key');
	}
};

export const CONTROL_ROUTES: Array<Route<Handler>> = [
	{ pattern: /^\/state$/, methods: { GET: (context) => ok(context.state()) } },
	{ pattern: /^\/blocks$/, methods: { POST: injectBlock } },
	{ pattern: /^\/reset$/, methods: { POST: (context) => (context.reset(), NO_CONTENT) } },
	{ pattern: /^\/config$/, methods: { PATCH: (context, { body }) => (context.configure(parseConfigPatch(body)), ok(context.currentConfig())) } },
	{ pattern: /^\/reorg$/, methods: { POST: injectReorg } },
	{ pattern: /^\/faults$/, methods: { POST: armFaults } },
	{ pattern: /^\/faults\/deliveries$/, methods: { POST: deliveryFaults } },
	{ pattern: /^\/secret$/, methods: { GET: secret } },
	{ pattern: /^\/deliveries$/, methods: { GET: (context) => ok({ deliveries: context.deliveries }) } },
	{ pattern: /^\/requests$/, methods: { GET: (context) => ok({ requests: context.requests }) } },
];

export function isLoopback(address: string | undefined): boolean {
	return address !== undefined && /^(127\.|::1$|::ffff:127\.)/.test(address);
}
