/**
 * Test control over HTTP, for tests and tools in another process (an n8n run,
 * the CLI): no API key, loopback callers only, not recorded, not rate limited.
 */
import { HttpError, type Reply, type Route } from './http';
import type { ConfigPatch, Emulator, HookRecord, Network } from './types';
import { parseBlock, parseConfigPatch, parseFault } from './validation';

export const CONTROL_PREFIX = '/_emulator';

export interface EmulatorState {
	network: Network;
	url: string;
	accounts: Array<{ apiKey: string; hooks: HookRecord[] }>;
	blockHeights: number[];
	deliveries: number;
	requests: number;
}

export interface ControlContext extends Emulator {
	state(): EmulatorState;
	currentConfig(): ConfigPatch;
}

export interface ControlRequest {
	query: URLSearchParams;
	body: unknown;
}

type Handler = (context: ControlContext, request: ControlRequest) => Reply | Promise<Reply>;

const ok = (body: unknown): Reply => ({ status: 200, body });
const NO_CONTENT: Reply = { status: 204 };

function isTrue(value: string | null): boolean {
	return value === '1' || value === 'true';
}

const injectBlock: Handler = async (context, request) => {
	const block = parseBlock(request.body);
	const rollback = isTrue(request.query.get('rollback'));
	const deliveries = await (rollback ? context.injectRollback(block) : context.injectBlock(block));
	return ok({ deliveries });
};

const configure: Handler = (context, request) => {
	context.configure(parseConfigPatch(request.body));
	return ok(context.currentConfig());
};

const armFaults: Handler = (context, request) => {
	const { count, status, ...options } = parseFault(request.body);
	context.failNext(count, status, options);
	return NO_CONTENT;
};

const secret: Handler = (context, request) => {
	try {
		return ok({ secret: context.consumerSecret(request.query.get('apiKey') ?? undefined) });
	} catch {
		throw new HttpError(404, 'No account with that API key');
	}
};

export const CONTROL_ROUTES: Array<Route<Handler>> = [
	{ pattern: /^\/state$/, methods: { GET: (context) => ok(context.state()) } },
	{ pattern: /^\/blocks$/, methods: { POST: injectBlock } },
	{ pattern: /^\/reset$/, methods: { POST: (context) => (context.reset(), NO_CONTENT) } },
	{ pattern: /^\/config$/, methods: { PATCH: configure } },
	{ pattern: /^\/faults$/, methods: { POST: armFaults } },
	{ pattern: /^\/secret$/, methods: { GET: secret } },
	{
		pattern: /^\/deliveries$/,
		methods: { GET: (context) => ok({ deliveries: context.deliveries }) },
	},
	{ pattern: /^\/requests$/, methods: { GET: (context) => ok({ requests: context.requests }) } },
];

export function isLoopback(address: string | undefined): boolean {
	return address !== undefined && /^(127\.|::1$|::ffff:127\.)/.test(address);
}
