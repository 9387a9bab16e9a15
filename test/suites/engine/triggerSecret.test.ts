/**
 * Set-up with the API key only: the Stacks Hooks Trigger obtains the account's
 * consumer secret itself, checks deliveries without loading the credential,
 * and notices a rotation at the service — through n8n-core's real hook and
 * webhook contexts against the emulator.
 */
import type { IDataObject } from 'n8n-workflow';

import { makeBlock } from '../../emulator';
import {
	ALICE,
	API_KEY,
	BOB,
	CONSUMER_SECRET,
	credentialsFor,
	credentialTypes,
	emu,
	activateTrigger,
	runTriggerHook,
	triggerParameters,
	runWebhook,
	triggerNode,
	useEmulator,
	WEBHOOK,
} from '../../support/engine/fixtures';

useEmulator();

const OTHER_SECRET = 'abad1dea'.repeat(8);
const MINUTE = 60_000;
const parameters = triggerParameters();

let workflowCount = 0;
/** Each test is another workflow: the trigger keeps its once-a-minute budget per workflow, in memory. */
let workflowId: string;
/** Credential loads: reads of the Stacks Hooks API credential by n8n's credentials helper. */
let loads: number;
let credentialFields: IDataObject;

beforeEach(() => {
	workflowId = `secretWf${++workflowCount}`;
	loads = 0;
	credentialFields = {};
	emu.setConsumerSecret(CONSUMER_SECRET, API_KEY);
});

afterEach(() => {
	jest.restoreAllMocks();
	frozenAt = undefined;
});

function credentials() {
	return new Proxy(credentialsFor(emu, credentialFields), {
		get(target, key, receiver) {
			if (key === 'stacksHooksApi') loads++;
			return Reflect.get(target, key, receiver) as unknown;
		},
	});
}

const lifecycle = (method: 'checkExists' | 'create' | 'delete', staticData: IDataObject) =>
	runTriggerHook(method, staticData, { credentials: credentials(), workflowId });
const activate = (staticData: IDataObject = {}) => activateTrigger(staticData, { credentials: credentials(), workflowId });

const body = {
	chainhook: { uuid: '9a7c1e52-3f0b-4d8e-a1c2-5b6d7e8f9a0b', name: 'payments' },
	event: {
		chain: 'stacks',
		network: 'testnet',
		apply: [makeBlock({ height: 7, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 5 }] })],
		rollback: [],
	},
};

/** A delivery carrying `secret` (none when null), with the static data n8n loaded for it. */
async function deliver(staticData: IDataObject, secret: string | null) {
	const result = await runWebhook({
		nodeType: triggerNode,
		credentialTypes,
		credentials: credentials(),
		parameters,
		headers: { 'content-type': 'application/json', ...(secret === null ? {} : { 'x-hook-consumer-secret': secret }) },
		body,
		staticData,
		workflowId,
	});
	return { status: result.status, started: result.response.workflowData !== undefined };
}

const secretCalls = (method?: string) =>
	emu.requests.filter((r) => r.path.endsWith('/me/secret') && (method === undefined || r.method === method)).length;

/** Where freezeClock() stopped the trigger's clock in this test, if it did. */
let frozenAt: number | undefined;

/** Stops the trigger's clock (Date.now) now, so that a later() counts from this moment however long the work in between takes. */
function freezeClock(): void {
	jest.restoreAllMocks();
	frozenAt = Date.now();
	jest.spyOn(Date, 'now').mockReturnValue(frozenAt);
}

/** Sets the trigger's clock (Date.now) `ms` after the frozen moment, else after now; timers and the emulator keep running. */
function later(ms: number): void {
	jest.restoreAllMocks();
	const from = frozenAt ?? Date.now();
	jest.spyOn(Date, 'now').mockReturnValue(from + ms);
}

async function rotateAtTheService(): Promise<string> {
	const response = await fetch(`${emu.url}/me/secret`, { method: 'POST', headers: { 'x-api-key': API_KEY } });
	return ((await response.json()) as { secret: string }).secret;
}

describe('activation with the API key only', () => {
	it("reads the account's secret, leaves it as it is, and keeps only its digest", async () => {
		const staticData = await activate();
		expect(secretCalls('GET')).toBe(1);
		expect(secretCalls('POST')).toBe(0);
		expect(emu.consumerSecret(API_KEY)).toBe(CONSUMER_SECRET);
		expect(emu.hooks(API_KEY)).toHaveLength(1);
		expect(JSON.stringify(staticData)).not.toContain(CONSUMER_SECRET);
		expect(await deliver(staticData, CONSUMER_SECRET)).toEqual({ status: 200, started: true });
	});

	it('gives an account without a secret one, before its hook exists, and runs on it', async () => {
		emu.setConsumerSecret(null, API_KEY);
		const staticData = await activate();
		const created = emu.consumerSecret(API_KEY);
		expect(created).toMatch(/^[0-9a-f]{64}$/);
		const order = emu.requests.map((r) => `${r.method} ${r.path.replace(/^.*\/v1/, '').replace(/\/$/, '')}`);
		expect(order.indexOf('POST /me/secret')).toBeGreaterThanOrEqual(0);
		expect(order.indexOf('POST /me/secret')).toBeLessThan(order.indexOf('POST /me'));
		expect(await deliver(staticData, created)).toEqual({ status: 200, started: true });
	});

	it('reads the secret again at start-up, when n8n finds the hook still there', async () => {
		const staticData = await activate();
		emu.clearRequests();
		expect(await lifecycle('checkExists', staticData)).toBe(true);
		expect(secretCalls('GET')).toBe(1);
	});

	it('uses a filled-in credential secret as it is: no request for the secret, and only it is accepted', async () => {
		credentialFields = { consumerSecret: OTHER_SECRET };
		const staticData = await activate();
		expect(secretCalls()).toBe(0);
		expect(await deliver(staticData, OTHER_SECRET)).toEqual({ status: 200, started: true });
		expect(await deliver(staticData, CONSUMER_SECRET)).toEqual({ status: 401, started: false });
		expect(secretCalls()).toBe(0);
	});

	it('fails activation with the service error when the secret cannot be read, and registers nothing', async () => {
		emu.failNext(1, 500, { match: { method: 'GET', path: '/me/secret' } });
		await expect(activate()).rejects.toThrow(/500/);
		expect(emu.hooks(API_KEY)).toHaveLength(0);
	});
});

describe('deliveries', () => {
	it('accepts the right secret without loading the credential or sending a request', async () => {
		const staticData = await activate();
		emu.clearRequests();
		loads = 0;
		for (let i = 0; i < 50; i++) expect(await deliver(staticData, CONSUMER_SECRET)).toEqual({ status: 200, started: true });
		expect(loads).toBe(0);
		expect(emu.requests).toHaveLength(0);
	});

	it('answers 1,000 wrong secrets at once with 401, starting nothing, for one read of the secret', async () => {
		const staticData = await activate();
		emu.clearRequests();
		loads = 0;
		const wrong = [null, 'f'.repeat(64), CONSUMER_SECRET.slice(1), `${CONSUMER_SECRET}0`];
		// The read happens at this moment: 1,000 deliveries can take seconds on a busy machine.
		freezeClock();
		const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => deliver(staticData, wrong[i % wrong.length])));
		expect(answers.filter((a) => a.status === 401)).toHaveLength(1000);
		expect(answers.filter((a) => a.started)).toHaveLength(0);
		expect(secretCalls('GET')).toBe(1);
		// That one read: the trigger reads the credential for the address, n8n again to add the key.
		expect(loads).toBe(2);
		expect(emu.requests).toHaveLength(1);

		later(MINUTE - 1000);
		expect(await deliver(staticData, 'f'.repeat(64))).toEqual({ status: 401, started: false });
		expect(secretCalls('GET')).toBe(1);
		later(MINUTE + 1000);
		expect(await deliver(staticData, 'f'.repeat(64))).toEqual({ status: 401, started: false });
		expect(secretCalls('GET')).toBe(2);
		expect(emu.consumerSecret(API_KEY)).toBe(CONSUMER_SECRET);
	});

	it('picks up a rotation at the service at the next delivery; the old secret is refused from then on', async () => {
		const loaded = await activate();
		const staticData = structuredClone(loaded);
		const rotated = await rotateAtTheService();
		emu.clearRequests();

		expect(await deliver(staticData, rotated)).toEqual({ status: 200, started: true });
		expect(secretCalls('GET')).toBe(1);
		expect(JSON.stringify(staticData)).not.toContain(rotated);
		// Deliveries whose copy of the static data was loaded before the change was saved.
		const stale = await Promise.all(Array.from({ length: 10 }, () => deliver(structuredClone(loaded), rotated)));
		expect(stale).toEqual(Array.from({ length: 10 }, () => ({ status: 200, started: true })));
		// The saved static data now holds the new secret's digest: no read, no credential load.
		loads = 0;
		expect(await deliver(staticData, rotated)).toEqual({ status: 200, started: true });
		expect(loads).toBe(0);

		expect(await deliver(staticData, CONSUMER_SECRET)).toEqual({ status: 401, started: false });
		later(MINUTE + 1000);
		expect(await deliver(staticData, CONSUMER_SECRET)).toEqual({ status: 401, started: false });
		expect(secretCalls('GET')).toBe(2);
	});

	it('runs deliveries with a rotated secret within a minute even while wrong secrets keep coming', async () => {
		const staticData = await activate();
		expect(await deliver(staticData, 'f'.repeat(64))).toEqual({ status: 401, started: false });
		const rotated = await rotateAtTheService();
		later(30_000);
		expect(await deliver(staticData, rotated)).toEqual({ status: 401, started: false });
		later(MINUTE + 1000);
		expect(await deliver(staticData, rotated)).toEqual({ status: 200, started: true });
		expect(secretCalls('GET')).toBe(3);
	});

	it('after the secret was deleted at the service, creates a new one at the next delivery and runs on it', async () => {
		const staticData = await activate();
		await fetch(`${emu.url}/me/secret`, { method: 'DELETE', headers: { 'x-api-key': API_KEY } });
		expect(await deliver(staticData, null)).toEqual({ status: 401, started: false });
		const created = emu.consumerSecret(API_KEY);
		expect(created).toMatch(/^[0-9a-f]{64}$/);
		expect(await deliver(staticData, created)).toEqual({ status: 200, started: true });
	});

	it('picks up a changed credential secret, which still wins', async () => {
		credentialFields = { consumerSecret: OTHER_SECRET };
		const staticData = await activate();
		credentialFields = { consumerSecret: `${OTHER_SECRET}2` };
		expect(await deliver(staticData, `${OTHER_SECRET}2`)).toEqual({ status: 200, started: true });
		expect(secretCalls()).toBe(0);
	});

	it('works for a workflow activated before the trigger kept a digest: one read, then none', async () => {
		const staticData: IDataObject = { production: { hookId: '9a7c1e52-3f0b-4d8e-a1c2-5b6d7e8f9a0b', webhookUrl: WEBHOOK } };
		expect(await deliver(staticData, CONSUMER_SECRET)).toEqual({ status: 200, started: true });
		expect(secretCalls('GET')).toBe(1);
		loads = 0;
		expect(await deliver(staticData, CONSUMER_SECRET)).toEqual({ status: 200, started: true });
		expect(loads).toBe(0);
		expect(secretCalls('GET')).toBe(1);
	});

	it('answers 401 and starts nothing when the secret cannot be read again, and tries again a minute later', async () => {
		const staticData = await activate();
		const rotated = await rotateAtTheService();
		emu.failNext(1, 500, { match: { method: 'GET', path: '/me/secret' } });
		expect(await deliver(staticData, rotated)).toEqual({ status: 401, started: false });
		later(MINUTE + 1000);
		expect(await deliver(staticData, rotated)).toEqual({ status: 200, started: true });
	});
});
