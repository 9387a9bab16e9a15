/** The hook API: one handler per endpoint, all answering for the authenticated account. */
import type { Block } from './chain';
import { badRequest, HttpError, type Reply, type Route } from './http';
import { newSecret, setEnabled, type Account, type Store } from './store';
import type { HookRecord } from './types';
import {
	parseBulk,
	parseDefinition,
	parseEnabled,
	parseEvaluate,
	parsePage,
	parseUpdate,
	parseUuid,
	type BulkFilters,
	type DefinitionRules,
} from './validation';

export interface ApiContext {
	store: Store;
	definitionRules(): DefinitionRules;
	maxHooksPerAccount(): number;
	/** Evaluates the block against this one hook after the answer has gone, delivering a match. */
	evaluateLater(account: Account, hook: HookRecord, block: Block): void;
}

export interface ApiRequest {
	/** Path after the prefix, without a trailing slash: '' , '/me', '/me/<uuid>/enabled', ... */
	path: string;
	query: URLSearchParams;
	/** Parsed JSON body; undefined when there was none. */
	body: unknown;
	account: Account;
}

type Handler = (context: ApiContext, request: ApiRequest, params: string[]) => Reply;

const ok = (body: unknown): Reply => ({ status: 200, body });
const NO_CONTENT: Reply = { status: 204 };

function hookOf(request: ApiRequest, rawUuid: string): HookRecord {
	const uuid = parseUuid(rawUuid);
	const hook = request.account.hooks.get(uuid);
	if (!hook) throw new HttpError(404, `Chainhook ${uuid} not found`);
	return hook;
}

const serviceStatus: Handler = () =>
	ok({ server_version: 'stacks-hooks-emulator', status: 'ready' });

const register: Handler = (context, request) => {
	const definition = parseDefinition(request.body, context.definitionRules());
	const max = context.maxHooksPerAccount();
	// 400 rather than 403/409: the contract's error table has no other status for a refused request.
	if (request.account.hooks.size >= max) {
		throw badRequest(`Hook limit reached: an account may hold at most ${max} hooks`);
	}
	return ok(context.store.createHook(request.account, definition, Date.now()));
};

const list: Handler = (_context, request) => {
	const { limit, offset } = parsePage(request.query);
	const hooks = [...request.account.hooks.values()];
	return ok({ limit, offset, total: hooks.length, results: hooks.slice(offset, offset + limit) });
};

const get: Handler = (_context, request, [uuid]) => ok(hookOf(request, uuid));

const update: Handler = (context, request, [uuid]) => {
	const hook = hookOf(request, uuid);
	hook.definition = parseUpdate(hook.definition, request.body, context.definitionRules());
	return ok(hook);
};

const remove: Handler = (_context, request, [uuid]) => {
	request.account.hooks.delete(hookOf(request, uuid).uuid);
	return NO_CONTENT;
};

const enable: Handler = (_context, request, [uuid]) => {
	const hook = hookOf(request, uuid);
	setEnabled(hook, parseEnabled(request.body));
	return NO_CONTENT;
};

const evaluate: Handler = (context, request, [uuid]) => {
	const hook = hookOf(request, uuid);
	const block = context.store.findBlock(parseEvaluate(request.body));
	if (block) context.evaluateLater(request.account, hook, block);
	return NO_CONTENT;
};

function matchesBulk(hook: HookRecord, filters: BulkFilters): boolean {
	return (
		(filters.webhook_url === undefined || hook.definition.action.url === filters.webhook_url) &&
		(filters.uuids === undefined ||
			filters.uuids.some((uuid) => uuid.toLowerCase() === hook.uuid)) &&
		(filters.statuses === undefined || filters.statuses.includes(hook.status.status))
	);
}

/** Every hook matching all given filters gets the value; all of them are reported, changed or not. */
const bulkEnable: Handler = (_context, request) => {
	const { enabled, filters } = parseBulk(request.body);
	const matching = [...request.account.hooks.values()].filter((hook) => matchesBulk(hook, filters));
	for (const hook of matching) setEnabled(hook, enabled);
	return ok({ updated_uuids: matching.map((hook) => hook.uuid) });
};

const getSecret: Handler = (_context, request) => ok({ secret: request.account.secret });

const rotateSecret: Handler = (_context, request) => {
	request.account.secret = newSecret();
	return ok({ secret: request.account.secret });
};

const deleteSecret: Handler = (_context, request) => {
	request.account.secret = null;
	return NO_CONTENT;
};

const UUID = '([^/]+)';

/** Fixed paths come before `/me/{uuid}` so that `secret` and `enabled` are not taken for UUIDs. */
export const API_ROUTES: Array<Route<Handler>> = [
	{ pattern: /^$/, methods: { GET: serviceStatus } },
	{ pattern: /^\/me$/, methods: { GET: list, POST: register } },
	{
		pattern: /^\/me\/secret$/,
		methods: { GET: getSecret, POST: rotateSecret, DELETE: deleteSecret },
	},
	{ pattern: /^\/me\/enabled$/, methods: { PATCH: bulkEnable } },
	{ pattern: new RegExp(`^/me/${UUID}$`), methods: { GET: get, PATCH: update, DELETE: remove } },
	{ pattern: new RegExp(`^/me/${UUID}/enabled$`), methods: { PATCH: enable } },
	{ pattern: new RegExp(`^/me/${UUID}/evaluate$`), methods: { POST: evaluate } },
];

/** The service is served under each of these; the first is the contract's, the others the real service's. */
export const API_PREFIXES = ['/hooks/v1', '/chainhooks/v1', '/chainhooks'];

/** The path after a known prefix with any trailing slash removed, or null when no prefix matches. */
export function apiPath(pathname: string): string | null {
	for (const prefix of API_PREFIXES) {
		if (pathname === prefix || pathname.startsWith(`${prefix}/`)) {
			return pathname.slice(prefix.length).replace(/\/$/, '');
		}
	}
	return null;
}
