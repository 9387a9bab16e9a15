/** The hook API over real HTTP: authentication, validation, the hook lifecycle, pagination, limits. */
import { startEmulator, type Emulator, type HookRecord } from '../../emulator/index';
import { API_KEY, apiClient, definition, events, type ApiCall } from './helpers';

interface Page {
	limit: number;
	offset: number;
	total: number;
	results: HookRecord[];
}

const RATE_HEADERS = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];

let emulator: Emulator;
let api: ApiCall;

beforeAll(async () => {
	emulator = await startEmulator({
		accounts: [{ apiKey: API_KEY }, { apiKey: 'other-key' }],
	});
	api = apiClient(emulator);
});
afterAll(() => emulator.close());
beforeEach(() => emulator.reset());

async function register(overrides = {}): Promise<HookRecord> {
	const answer = await api<HookRecord>('POST', '/me/', definition(overrides));
	expect(answer.status).toBe(200);
	return answer.body;
}

describe('authentication', () => {
	it.each([
		['no key', null, 'Missing x-api-key header'],
		['an unknown key', 'sk-wrong-0123456789', 'Invalid API key'],
	])('answers 401 to %s, without echoing the key', async (_case, key, details) => {
		const answer = await apiClient(emulator, key)('GET', '/me/');
		expect(answer.status).toBe(401);
		expect(answer.body).toEqual({ error: 'Unauthorized', details });
		for (const header of RATE_HEADERS) expect(answer.headers.get(header)).not.toBeNull();
	});
});

describe('registration', () => {
	it('creates a disabled hook in state new', async () => {
		const before = Date.now();
		const hook = await register();
		expect(hook.uuid).toMatch(/^[0-9a-f-]{36}$/);
		expect(hook.definition).toEqual(definition());
		expect(hook.status).toMatchObject({
			status: 'new',
			enabled: false,
			last_evaluated_at: null,
			last_occurrence_at: null,
			evaluated_block_count: 0,
			occurrence_count: 0,
		});
		expect(hook.status.created_at).toBeGreaterThanOrEqual(before);
		expect((await api<HookRecord>('GET', `/me/${hook.uuid}`)).body).toEqual(hook);
	});

	it('starts streaming when enable_on_registration is set', async () => {
		const hook = await register({ options: { enable_on_registration: true } });
		expect(hook.status).toMatchObject({ status: 'streaming', enabled: true });
	});

	it('answers 400 with the contract message when filters.events is missing', async () => {
		const answer = await api('POST', '/me/', { ...definition(), filters: {} });
		expect(answer.status).toBe(400);
		expect(answer.body).toEqual({ error: 'Bad Request', details: 'filters.events is required' });
	});

	it.each([
		[
			'an http webhook',
			{ action: { type: 'http_post', url: 'http://hooks.example.com/x' } },
			'action.url: must use https',
		],
		['the other network', { network: 'mainnet' }, 'network: this service serves testnet'],
		['another version', { version: '2' }, 'version'],
		['no event filter', { filters: { events: [] } }, 'at least one event filter'],
		['an unknown field', { colour: 'blue' }, 'colour: unknown field'],
		[
			'an unknown filter field',
			{ filters: events({ type: 'stx_transfer', amount: 5 } as never) },
			'amount: unknown field',
		],
		[
			'an unknown event type',
			{ filters: events({ type: 'stx_party' } as never) },
			'type: must be one of',
		],
		[
			'a malformed sender',
			{ filters: events({ type: 'stx_transfer', sender: 'alice' }) },
			'sender',
		],
	])('answers 400 to %s', async (_case, overrides, details) => {
		const answer = await api('POST', '/me/', definition(overrides as object));
		expect(answer.status).toBe(400);
		expect(answer.body.details).toContain(details);
		expect(emulator.hooks()).toHaveLength(0);
	});

	it.each([
		[
			'no content type',
			JSON.stringify(definition()),
			{ 'content-type': 'text/plain' },
			'Content-Type',
		],
		['malformed JSON', '{"name": ', {}, 'not valid JSON'],
	])('answers 400 to a body with %s', async (_case, body, headers, details) => {
		const answer = await api('POST', '/me/', body, headers);
		expect(answer.status).toBe(400);
		expect(answer.body.details).toContain(details);
	});

	it('refuses hooks beyond the account limit', async () => {
		emulator.configure({ maxHooksPerAccount: 2 });
		try {
			await register();
			await register();
			const answer = await api('POST', '/me/', definition());
			expect(answer.status).toBe(400);
			expect(answer.body.details).toContain('at most 2 hooks');
		} finally {
			emulator.configure({ maxHooksPerAccount: 1000 });
		}
	});
});

describe('lookup', () => {
	it('answers 404 for an unknown uuid and for another account’s hook', async () => {
		const unknown = '8f7c2a1e-0000-4000-8000-000000000000';
		expect((await api('GET', `/me/${unknown}`)).body).toEqual({
			error: 'Not Found',
			details: `Chainhook ${unknown} not found`,
		});
		const hook = await register();
		expect((await apiClient(emulator, 'other-key')('GET', `/me/${hook.uuid}`)).status).toBe(404);
	});

	it('answers 400 for a malformed uuid, 404 for an unknown path and 405 for a wrong method', async () => {
		expect((await api('GET', '/me/not-a-uuid')).status).toBe(400);
		expect((await api('GET', '/you/')).status).toBe(404);
		const wrongMethod = await api('PUT', '/me/');
		expect(wrongMethod.status).toBe(405);
		expect(wrongMethod.body.error).toBe('Method Not Allowed');
	});

	it('serves the real client’s prefixes too', async () => {
		const hook = await register();
		for (const prefix of ['/chainhooks/me', '/chainhooks/v1/me/']) {
			const answer = await apiClient(emulator, API_KEY, emulator.origin)<Page>('GET', prefix);
			expect(answer.body.results.map((h) => h.uuid)).toEqual([hook.uuid]);
		}
	});
});

describe('pagination', () => {
	it('pages 150 hooks in creation order', async () => {
		const created: string[] = [];
		for (let i = 0; i < 150; i++) created.push((await register({ name: `hook ${i}` })).uuid);
		const pages = [];
		for (const offset of [0, 60, 120])
			pages.push((await api<Page>('GET', `/me/?limit=60&offset=${offset}`)).body);
		expect(pages.map((page) => page.results.length)).toEqual([60, 60, 30]);
		expect(pages.map((page) => [page.limit, page.offset, page.total])).toEqual([
			[60, 0, 150],
			[60, 60, 150],
			[60, 120, 150],
		]);
		expect(pages.flatMap((page) => page.results.map((hook) => hook.uuid))).toEqual(created);
		const firstDefault = (await api<Page>('GET', '/me')).body;
		expect([firstDefault.limit, firstDefault.offset, firstDefault.results.length]).toEqual([
			20, 0, 20,
		]);
	});

	it.each(['limit=61', 'limit=0', 'limit=2.5', 'limit=abc', 'offset=-1'])(
		'answers 400 to %s',
		async (query) => {
			const answer = await api('GET', `/me/?${query}`);
			expect(answer.status).toBe(400);
			expect(answer.body.details).toMatch(/^(limit|offset): must be an integer/);
		},
	);
});

describe('enabling', () => {
	it('enables (new -> streaming) and disables (status kept) one hook', async () => {
		const hook = await register();
		const enabled = await api('PATCH', `/me/${hook.uuid}/enabled`, { enabled: true });
		expect([enabled.status, enabled.body]).toEqual([204, undefined]);
		expect(emulator.hooks()[0].status).toMatchObject({ status: 'streaming', enabled: true });
		await api('PATCH', `/me/${hook.uuid}/enabled`, { enabled: false });
		expect(emulator.hooks()[0].status).toMatchObject({ status: 'streaming', enabled: false });
	});

	it.each([[{ enabled: 'yes' }], [{ enabled: true, extra: 1 }], [{}]])(
		'answers 400 to %j',
		async (body) => {
			const hook = await register();
			expect((await api('PATCH', `/me/${hook.uuid}/enabled`, body)).status).toBe(400);
		},
	);

	it('bulk-enables the hooks matching every given filter', async () => {
		const a = await register({ action: { type: 'http_post', url: 'https://a.example/hook' } });
		const b = await register({ action: { type: 'http_post', url: 'https://a.example/hook' } });
		await register({ action: { type: 'http_post', url: 'https://b.example/hook' } });
		await api('PATCH', `/me/${b.uuid}/enabled`, { enabled: true });

		const byUrl = await api<{ updated_uuids: string[] }>('PATCH', '/me/enabled', {
			enabled: true,
			filters: { webhook_url: 'https://a.example/hook', statuses: ['new'] },
		});
		expect(byUrl.body).toEqual({ updated_uuids: [a.uuid] });
		expect(emulator.hooks().map((hook) => hook.status.enabled)).toEqual([true, true, false]);

		const byUuid = await api<{ updated_uuids: string[] }>('PATCH', '/me/enabled', {
			enabled: false,
			filters: { uuids: [a.uuid, b.uuid] },
		});
		expect(byUuid.body.updated_uuids).toEqual([a.uuid, b.uuid]);
		expect(emulator.hooks().map((hook) => hook.status.enabled)).toEqual([false, false, false]);
	});

	it.each([
		[{ enabled: true }],
		[{ enabled: true, filters: {} }],
		[{ enabled: true, filters: { uuids: [] } }],
	])('answers 400 to a bulk request %j', async (body) => {
		expect((await api('PATCH', '/me/enabled', body)).status).toBe(400);
	});
});

describe('changing and deleting', () => {
	it('updates a hook with a partial definition', async () => {
		const hook = await register();
		const answer = await api<HookRecord>('PATCH', `/me/${hook.uuid}`, {
			name: 'renamed',
			filters: events({ type: 'coinbase' }),
		});
		expect(answer.status).toBe(200);
		expect(answer.body.definition).toEqual(
			definition({ name: 'renamed', filters: events({ type: 'coinbase' }) }),
		);
		expect(emulator.hooks()[0].definition.name).toBe('renamed');
	});

	it('refuses to move a hook to another network', async () => {
		const hook = await register();
		const answer = await api('PATCH', `/me/${hook.uuid}`, { network: 'mainnet' });
		expect(answer.status).toBe(400);
		expect(answer.body.details).toBe('network: cannot be changed');
	});

	it('deletes a hook', async () => {
		const keep = await register();
		const drop = await register();
		expect((await api('DELETE', `/me/${drop.uuid}`)).status).toBe(204);
		expect((await api('GET', `/me/${drop.uuid}`)).status).toBe(404);
		expect((await api('DELETE', `/me/${drop.uuid}`)).status).toBe(404);
		expect((await api<Page>('GET', '/me/')).body).toMatchObject({
			total: 1,
			results: [{ uuid: keep.uuid }],
		});
	});
});

describe('consumer secret', () => {
	it('reads, rotates and deletes the account secret', async () => {
		const original = emulator.consumerSecret();
		expect((await api('GET', '/me/secret')).body).toEqual({ secret: original });

		const rotated = await api<{ secret: string }>('POST', '/me/secret');
		expect(rotated.status).toBe(200);
		expect(rotated.body.secret).toMatch(/^[0-9a-f]{64}$/);
		expect(rotated.body.secret).not.toBe(original);
		expect(emulator.consumerSecret()).toBe(rotated.body.secret);

		expect((await api('DELETE', '/me/secret')).status).toBe(204);
		expect((await api('GET', '/me/secret')).body).toEqual({ secret: null });
		expect(emulator.consumerSecret('other-key')).toMatch(/^[0-9a-f]{64}$/);
	});
});

describe('rate limits and faults', () => {
	it('counts down every answer and answers 429 with retry-after once the budget is spent', async () => {
		const limited = await startEmulator({ rateLimit: { limit: 3, windowMs: 60_000 } });
		try {
			const call = apiClient(limited);
			const answers = [];
			for (let i = 0; i < 4; i++) answers.push(await call('GET', '/me/'));
			expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
			expect(answers.map((a) => a.headers.get('ratelimit-remaining'))).toEqual([
				'2',
				'1',
				'0',
				'0',
			]);
			const reset = Number(answers[0].headers.get('ratelimit-reset'));
			expect(reset).toBeGreaterThan(Date.now() / 1000);
			expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
			const retryAfter = Number(answers[3].headers.get('retry-after'));
			expect(retryAfter).toBeGreaterThanOrEqual(1);
			expect(retryAfter).toBeLessThanOrEqual(60);
			expect(answers[3].body.error).toBe('Too Many Requests');
			expect(answers.slice(0, 3).every((a) => a.headers.get('retry-after') === null)).toBe(true);
		} finally {
			await limited.close();
		}
	});

	it('injects faults into the next requests only', async () => {
		emulator.failNext(2);
		emulator.configure({ retryAfterSeconds: 7 });
		try {
			const first = await api('GET', '/me/');
			expect([first.status, first.headers.get('retry-after'), first.body.error]).toEqual([
				429,
				'7',
				'Too Many Requests',
			]);
			expect((await api('GET', '/me/')).status).toBe(429);
			expect((await api('GET', '/me/')).status).toBe(200);

			emulator.failNext(1, 503);
			const unavailable = await api('GET', '/me/');
			expect([unavailable.status, unavailable.headers.get('retry-after')]).toEqual([503, null]);
			expect(unavailable.body).toEqual({ error: 'Service Unavailable', details: 'Injected fault' });
		} finally {
			emulator.configure({ retryAfterSeconds: undefined });
		}
	});

	it('fails only the requests a fault matches', async () => {
		const hook = await register();
		emulator.failNext(1, 500, { match: { method: 'patch', path: /\/enabled$/ } });
		expect((await api('GET', `/me/${hook.uuid}`)).status).toBe(200);
		expect((await api('PATCH', `/me/${hook.uuid}`, { name: 'x' })).status).toBe(200);
		expect((await api('PATCH', `/me/${hook.uuid}/enabled`, { enabled: true })).status).toBe(500);
		expect((await api('PATCH', `/me/${hook.uuid}/enabled`, { enabled: true })).status).toBe(204);
	});

	it('serves the first `skip` matching requests, then fails the next ones', async () => {
		const hook = await register();
		emulator.failNext(2, 503, { match: { method: 'GET' }, skip: 1 });
		expect((await api('GET', `/me/${hook.uuid}`)).status).toBe(200);
		expect((await api('PATCH', `/me/${hook.uuid}`, { name: 'x' })).status).toBe(200);
		expect((await api('GET', `/me/${hook.uuid}`)).status).toBe(503);
		expect((await api('GET', '/me/')).status).toBe(503);
		expect((await api('GET', '/me/')).status).toBe(200);
	});

	it('adds the configured latency', async () => {
		emulator.configure({ latencyMs: 150 });
		try {
			const started = Date.now();
			await api('GET', '/me/');
			expect(Date.now() - started).toBeGreaterThanOrEqual(140);
		} finally {
			emulator.configure({ latencyMs: 0 });
		}
	});
});

describe('request log', () => {
	it('records API requests with their answers, not control requests', async () => {
		await api('POST', '/me/', definition());
		await fetch(`${emulator.origin}/_emulator/state`);
		expect(emulator.requests).toHaveLength(1);
		expect(emulator.requests[0]).toMatchObject({
			method: 'POST',
			path: '/hooks/v1/me/',
			body: definition(),
			status: 200,
		});
		expect(emulator.requests[0].headers['x-api-key']).toBe(API_KEY);
		emulator.clearRequests();
		expect(emulator.requests).toHaveLength(0);
	});
});
