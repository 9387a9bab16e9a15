/** The hook API: one handler per endpoint, all answering for the authenticated account. */
import { badRequest, HttpError, type Reply, type Route } from './http';
import type { Emulator } from './server';
import { newSecret, setEnabled, type Account } from './store';
import type { HookRecord } from './types';
import { parseBulk, parseDefinition, parseEnabled, parseEvaluate, parsePage, parseUpdate, parseUuid } from './validation';

export interface ApiRequest {
	query: URLSearchParams;
	/** Parsed JSON body; undefined when there was none. */
	body: unknown;
	account: Account;
}

type Handler = (context: Emulator, request: ApiRequest, params: string[]) => Reply;

const ok = (body: unknown): Reply => ({ status: 200, body });
const NO_CONTENT: Reply = { status: 204 };

function hookOf({ account }: ApiRequest, rawUuid: string): HookRecord {
	const uuid = parseUuid(rawUuid);
	const hook = account.hooks.get(uuid);
	if (!hook) throw new HttpError(404, `Chainhook ${uuid} not found`);
	return hook;
}

const register: Handler = (context, { body, account }) => {
	const definition = parseDefinition(body, context.rules);
	const max = context.maxHooksPerAccount();
	// 400 rather than 403/409: the contract's error table has no other status for a refused request.
	if (account.hooks.size >= max) throw badRequest(`Hook limit reached: an account may hold at most ${max} hooks`);
	return ok(context.store.createHook(account, definition, Date.now()));
};

const list: Handler = (_context, { query, account }) => {
	const { limit, offset } = parsePage(query);
	const hooks = [...account.hooks.values()];
	return ok({ limit, offset, total: hooks.length, results: hooks.slice(offset, offset + limit) });
};

const update: Handler = (context, request, [uuid]) => {
	const hook = hookOf(request, uuid);
	hook.definition = parseUpdate(hook.definition, request.body, context.rules);
	return ok(hook);
};

const evaluate: Handler = (context, request, [uuid]) => {
	const hook = hookOf(request, uuid);
	const ref = parseEvaluate(request.body);
	const block = context.store.findBlock(ref);
	if (block) context.evaluateLater(request.account, hook, block);
	// A height below the chain's tip that the tests never gave a block: on the real chain it has one, which the service
	// evaluates (and counts) and which matches none of the tests' filters.
	else if (ref.block_height !== undefined && ref.block_height <= context.store.tipHeight()) context.evaluateEmpty(hook, ref.block_height);
	return NO_CONTENT;
};

/** Every hook matching all given filters gets the value; all of them are reported, changed or not. */
const bulkEnable: Handler = (_context, { body, account }) => {
	const { enabled, filters } = parseBulk(body);
	const matching = [...account.hooks.values()].filter(
		(hook) =>
			(filters.webhook_url === undefined || hook.definition.action.url === filters.webhook_url) &&
			(filters.uuids === undefined || filters.uuids.some((uuid) => uuid.toLowerCase() === hook.uuid)) &&
			(filters.statuses === undefined || filters.statuses.includes(hook.status.status)),
	);
	for (const hook of matching) setEnabled(hook, enabled);
	return ok({ updated_uuids: matching.map((hook) => hook.uuid) });
};

const UUID = '([^/]+)';

/** Fixed paths come before `/me/{uuid}` so that `secret` and `enabled` are not taken for UUIDs. */
export const API_ROUTES: Array<Route<Handler>> = [
	{ pattern: /^$/, methods: { GET: () => ok({ server_version: 'stacks-hooks-emulator', status: 'ready' }) } },
	{ pattern: /^\/me$/, methods: { GET: list, POST: register } },
	{
		pattern: /^\/me\/secret$/,
		methods: {
			GET: (_context, { account }) => ok({ secret: account.secret }),
			POST: (_context, { account }) => ok({ secret: (account.secret = newSecret()) }),
			DELETE: (_context, { account }) => ((account.secret = null), NO_CONTENT),
		},
	},
	{ pattern: /^\/me\/enabled$/, methods: { PATCH: bulkEnable } },
	{
		pattern: new RegExp(`^/me/${UUID}$`),
		methods: {
			GET: (_context, request, [uuid]) => ok(hookOf(request, uuid)),
			PATCH: update,
			DELETE: (_context, request, [uuid]) => (request.account.hooks.delete(hookOf(request, uuid).uuid), NO_CONTENT),
		},
	},
	{ pattern: new RegExp(`^/me/${UUID}/enabled$`), methods: { PATCH: (_context, request, [uuid]) => (setEnabled(hookOf(request, uuid), parseEnabled(request.body)), NO_CONTENT) } },
	{ pattern: new RegExp(`^/me/${UUID}/evaluate$`), methods: { POST: evaluate } },
];

/** The service is served under each of these; the first is the contract's, the others the real service's. */
export const API_PREFIXES = ['/hooks/v1', '/chainhooks/v1', '/chainhooks'];

/** The path after a known prefix with any trailing slash removed, or null when no prefix matches. */
export function apiPath(pathname: string): string | null {
	const prefix = API_PREFIXES.find((candidate) => pathname === candidate || pathname.startsWith(`${candidate}/`));
	return prefix === undefined ? null : pathname.slice(prefix.length).replace(/\/$/, '');
}
