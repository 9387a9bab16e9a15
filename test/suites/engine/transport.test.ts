/**
 * The nodes' one door to the service surviving blips, through n8n's real
 * execution engine against the emulator: a time limit on every request,
 * repeats of the requests that are safe to repeat (on 502/503/504, a reset
 * connection, a time-out) with the contract's back-off, clear errors when it
 * gives up, and a registration that is never repeated blindly.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	ALICE,
	API_KEY,
	emu,
	hookById,
	registerThroughNode,
	runAction,
	runTriggerHook,
	stxTransferFrom,
	useEmulator,
	WEBHOOK,
} from '../../support/engine/fixtures';

/** The time limit, shortened so that a hung service costs a test less than a second per attempt (the product's is 30 s). */
const TIME_LIMIT_MS = 700;
jest.mock('../../../nodes/shared/constants', () => ({
	...jest.requireActual<object>('../../../nodes/shared/constants'),
	REQUEST_TIMEOUT_MS: 700,
}));

useEmulator();

const requests = (method?: string) => emu.requests.filter((request) => !method || request.method === method);

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
	const started = Date.now();
	const result = await run();
	return { result, ms: Date.now() - started };
}

/** A hook registered through the node, then the request log cleared: what a test then sees is its own. */
async function existingHook(): Promise<string> {
	const hook = await registerThroughNode(emu, 'kept');
	emu.clearRequests();
	return hook.uuid as string;
}

const getHook = async (uuid: string) => await runAction(emu, { resource: 'hook', operation: 'get', hookId: hookById(uuid) });

describe('requests that are safe to repeat', () => {
	it('are sent again after a 503, after the back-off, and the run succeeds', async () => {
		const uuid = await existingHook();
		emu.failNext(1, 503);
		const { result, ms } = await timed(async () => await getHook(uuid));
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.uuid)).toEqual([uuid]);
		expect(requests().map((request) => request.status)).toEqual([503, 200]);
		expect(ms).toBeGreaterThanOrEqual(950);
	});

	it.each([502, 503, 504])('give up on a service that answers %i three times, naming its address, the status and the attempts', async (status) => {
		const uuid = await existingHook();
		emu.failNext(3, status);
		const { result, ms } = await timed(async () => await getHook(uuid));
		expect(result.error?.message).toContain(`The Stacks Hooks service at ${emu.url} could not handle the request (${status}) after 3 attempts`);
		expect((result.error as { description?: string }).description).toMatch(/try again in a few minutes/);
		expect(JSON.stringify(result.error)).not.toContain(API_KEY);
		expect(requests()).toHaveLength(3);
		// 1 s, then 2 s.
		expect(ms).toBeGreaterThanOrEqual(2900);
	});

	it('are sent again after a reset connection, and the run succeeds', async () => {
		const uuid = await existingHook();
		emu.dropNext(1, 'reset');
		const { result, ms } = await timed(async () => await getHook(uuid));
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.uuid)).toEqual([uuid]);
		expect(requests()).toHaveLength(2);
		expect(ms).toBeGreaterThanOrEqual(950);
	});

	it('give up on a service that keeps resetting the connection, naming the error and the attempts', async () => {
		const uuid = await existingHook();
		emu.dropNext(3, 'reset');
		const { error } = await getHook(uuid);
		expect(error?.message).toBe(`Could not reach the Stacks Hooks service at ${emu.url} (ECONNRESET) after 3 attempts`);
		expect(JSON.stringify(error)).not.toContain(API_KEY);
		expect(requests()).toHaveLength(3);
	});

	it('are given up when the service does not answer within the time limit, saying so', async () => {
		const uuid = await existingHook();
		emu.dropNext(3, 'hang');
		const { result, ms } = await timed(async () => await getHook(uuid));
		expect(result.error?.message).toBe(`The Stacks Hooks service at ${emu.url} did not answer within ${TIME_LIMIT_MS / 1000} s (timed out, 3 attempts)`);
		expect((result.error as { description?: string }).description).toMatch(/overloaded or down/);
		expect(requests()).toHaveLength(3);
		// Three time limits and the back-off between them, not n8n's own 300 s.
		expect(ms).toBeGreaterThanOrEqual(3 * TIME_LIMIT_MS + 2900);
		expect(ms).toBeLessThan(3 * TIME_LIMIT_MS + 3000 + 5000);
	});

	it('include the enable switch, the bulk switch (even when the first one was carried out) and the delete', async () => {
		const uuid = await existingHook();
		emu.failNext(1, 502, { match: { method: 'PATCH', path: `/${uuid}/enabled` } });
		expect((await runAction(emu, { resource: 'hook', operation: 'enable', hookId: hookById(uuid) })).error).toBeUndefined();
		emu.dropNext(1, 'reset', { match: { method: 'PATCH', path: '/me/enabled' }, afterServing: true });
		const off = await runAction(emu, { resource: 'hook', operation: 'disableMany', filters: { uuids: uuid } });
		expect(off.error).toBeUndefined();
		expect(emu.hooks(API_KEY).map((hook) => hook.status.enabled)).toEqual([false]);
		emu.dropNext(1, 'reset', { match: { method: 'DELETE' } });
		expect((await runAction(emu, { resource: 'hook', operation: 'delete', hookId: hookById(uuid) })).error).toBeUndefined();
		expect(requests().map((request) => `${request.method} ${request.status}`)).toEqual([
			'PATCH 502',
			'PATCH 204',
			'PATCH 0',
			'PATCH 200',
			'DELETE 0',
			'DELETE 204',
		]);
		expect(emu.hooks(API_KEY)).toHaveLength(0);
	});
});

describe('registration through the action node', () => {
	it('is not sent again after a 503: one POST, and an error saying to check before running again', async () => {
		emu.failNext(1, 503, { match: { method: 'POST' } });
		const { error } = await runAction(emu, { resource: 'hook', operation: 'create', name: 'once', webhookUrl: WEBHOOK, events: stxTransferFrom(ALICE) });
		expect(error?.message).toContain(`The Stacks Hooks service at ${emu.url} could not handle the request (503) after 1 attempt`);
		expect((error as { description?: string }).description).toMatch(/not sent again.*check whether it did/);
		expect(requests('POST')).toHaveLength(1);
		expect(emu.hooks(API_KEY)).toHaveLength(0);
	});

	it('is not sent again after a time-out', async () => {
		emu.dropNext(1, 'hang', { match: { method: 'POST' }, afterServing: true });
		const { error } = await runAction(emu, { resource: 'hook', operation: 'create', name: 'once', webhookUrl: WEBHOOK, events: stxTransferFrom(ALICE) });
		expect(error?.message).toBe(`The Stacks Hooks service at ${emu.url} did not answer within ${TIME_LIMIT_MS / 1000} s (timed out, 1 attempt)`);
		expect(requests('POST')).toHaveLength(1);
		// The service did register it: which is why it was not sent again.
		expect(emu.hooks(API_KEY)).toHaveLength(1);
	});
});

describe("the trigger's registration", () => {
	const create = (staticData: IDataObject) => runTriggerHook('create', staticData);
	/** Runs create: it must succeed and leave exactly one hook at the service, enabled and remembered by its UUID. */
	async function createLeavesOneEnabledRememberedHook(): Promise<void> {
		const staticData: IDataObject = {};
		expect(await create(staticData)).toBe(true);
		const hooks = emu.hooks(API_KEY);
		expect(hooks).toHaveLength(1);
		expect(hooks[0].status.enabled).toBe(true);
		expect(staticData.production).toEqual({ hookId: hooks[0].uuid, webhookUrl: WEBHOOK });
	}
	const registrations = () => requests('POST').filter((request) => request.path.endsWith('/me/'));
	const registration = { method: 'POST', path: /\/me\/$/ };

	it.each(['reset', 'hang'] as const)(
		'adopts the hook the service registered when the answer was lost (%s): exactly one, enabled, remembered',
		async (drop) => {
			emu.dropNext(1, drop, { match: registration, afterServing: true });
			await createLeavesOneEnabledRememberedHook();
			expect(registrations()).toHaveLength(1);
		},
	);

	it('registers once more when the first attempt was lost before the service registered anything', async () => {
		emu.dropNext(1, 'reset', { match: registration });
		await createLeavesOneEnabledRememberedHook();
		expect(registrations()).toHaveLength(2);
	});

	it('registers once more after a 503, and raises the error when that fails too', async () => {
		emu.failNext(2, 503, { match: registration });
		await expect(create({})).rejects.toThrow(`The Stacks Hooks service at ${emu.url} could not handle the request (503) after 1 attempt`);
		expect(registrations()).toHaveLength(2);
		expect(emu.hooks(API_KEY)).toHaveLength(0);
	});

	it('does not look or register again when the service refused the definition (4xx)', async () => {
		emu.failNext(1, 400, { match: registration });
		await expect(create({})).rejects.toThrow(/refused the request \(400\)/);
		expect(registrations()).toHaveLength(1);
		expect(requests('GET').filter((request) => request.path.endsWith('/me/'))).toHaveLength(0);
	});
});

describe("the catch-up's share of the account's rate limit", () => {
	const { pacerFor } = jest.requireActual<typeof import('../../../nodes/shared/transport/pacing')>('../../../nodes/shared/transport/pacing');
	/** An account whose window allows 100 requests, all left, resetting in 10 s: half (50) is spare for work that can wait. */
	const account = (name: string) => {
		const pacer = pacerFor(`share-test-${name}`);
		pacer.update({ 'ratelimit-limit': '100', 'ratelimit-remaining': '100', 'ratelimit-reset': String(Math.ceil(Date.now() / 1000) + 10) });
		return pacer;
	};

	it('gives each trigger with heights to replay an equal part of the spare half, and the whole of it to one alone', () => {
		const pacer = account('equal');
		expect(pacer.share('trigger A', 40).requests).toBe(50);
		// A second trigger of the account wants some too: each gets half, whichever asks first.
		expect(pacer.share('trigger B', 500).requests).toBe(25);
		expect(pacer.share('trigger A', 40).requests).toBe(25);
		// A is done: B has the spare half to itself again.
		expect(pacer.share('trigger A', 0).requests).toBe(50);
		expect(pacer.share('trigger B', 460).requests).toBe(50);
	});

	it('leaves the other half of the window to everything else, and bounds nothing while the budget is unknown', async () => {
		const pacer = account('half');
		for (let i = 0; i < 60; i++) await pacer.acquire();
		// 40 left: none of them for the catch-up, which waits for the window's reset.
		const share = pacer.share('trigger A', 10);
		expect(share.requests).toBe(0);
		expect(share.resetInMs).toBeGreaterThan(0);
		expect(pacerFor('share-test-unknown').share('trigger A', 10).requests).toBe(Number.POSITIVE_INFINITY);
	});
});
