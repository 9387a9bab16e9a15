/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Self-healing hooks, through n8n-core's real trigger, hook and webhook contexts against the
 * emulator: the health check that trigger() runs for an active workflow, the lifecycle around it,
 * and test deliveries, which n8n-core hands to trigger() in manual mode.
 */
import { createServer as createHttpServer } from 'http';
import { type AddressInfo, createServer, type Server, type Socket } from 'net';
import type { IDataObject } from 'n8n-workflow';
import { setTimeout as sleep } from 'timers/promises';

import { checkHookAndGaps, checkHookHealth } from '../../../nodes/StacksHooksTrigger/healthCheck/run';
import { makeBlock } from '../../emulator';
import {
	ALICE,
	API_KEY,
	BOB,
	CONSUMER_SECRET,
	activateTrigger,
	credentialTypes,
	credentialsFor,
	deliverToTrigger,
	emu,
	runAction,
	runTriggerHook,
	startTriggerOf,
	triggerNode,
	triggerParameters,
	useEmulator,
	WEBHOOK,
} from '../../support/engine/fixtures';
import { n8nLogger, runTestDelivery, runWebhook } from '../../support/engine/harness';

useEmulator();

const logger = n8nLogger();
let infos: string[];
let warnings: string[];
beforeEach(() => {
	infos = [];
	warnings = [];
	jest.spyOn(logger, 'info').mockImplementation((message: string) => void infos.push(message));
	jest.spyOn(logger, 'warn').mockImplementation((message: string) => void warnings.push(message));
});
afterEach(() => jest.restoreAllMocks());

/** A context of trigger() for the active workflow, without its schedule: the test calls the check itself. */
async function checker(staticData: IDataObject) {
	const { context } = await startTriggerOf(staticData, { parameters: triggerParameters({ options: { healthCheckMinutes: 0 } }) });
	return () => checkHookHealth(context);
}

const hooksAtWebhook = () => emu.hooks(API_KEY).filter((hook) => hook.definition.action.url === WEBHOOK);
const apiCalls = () => emu.requests.filter((request) => !request.path.startsWith('/_emulator')).map((request) => `${request.method} ${request.path.replace(/^\/hooks\/v1/, '')}`);
const patch = (uuid: string, enabled: boolean) =>
	fetch(`${emu.url}/me/${uuid}/enabled`, { method: 'PATCH', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ enabled }) });
const deleteByHand = (uuid: string) => fetch(`${emu.url}/me/${uuid}`, { method: 'DELETE', headers: { 'x-api-key': API_KEY } });

/** A hook of the same account posting elsewhere: never the trigger's to touch. */
async function foreignHook(): Promise<{ uuid: string }> {
	const { items, error } = await runAction(emu, {
		resource: 'hook',
		operation: 'create',
		name: 'not the trigger\'s',
		webhookUrl: 'https://127.0.0.1:9/elsewhere',
		events: { filter: [{ type: 'stx_transfer', sender: ALICE }] },
	});
	if (error) throw error;
	return items[0].json as { uuid: string };
}

async function until(condition: () => boolean): Promise<void> {
	for (let waited = 0; !condition(); waited += 5) {
		if (waited > 5000) throw new Error('condition not met within 5 s');
		await sleep(5);
	}
}

async function activeHook() {
	const staticData = await activateTrigger({});
	const [hook] = hooksAtWebhook();
	emu.clearRequests();
	return { staticData, hook };
}

describe('the health check of an active workflow', () => {
	it('does nothing but one GET while the hook delivers', async () => {
		const { staticData, hook } = await activeHook();
		expect(await (await checker(staticData))()).toBe('healthy');
		expect(apiCalls()).toEqual([`GET /me/${hook.uuid}`]);
		expect(infos.filter((line) => line.includes('Stacks Hooks Trigger'))).toEqual([]);
	});

	it('enables again a hook disabled at the service, and logs once what it did and why', async () => {
		const { staticData, hook } = await activeHook();
		await patch(hook.uuid, false);
		const check = await checker(staticData);
		expect(await check()).toBe('enabled');
		expect(hooksAtWebhook()).toEqual([expect.objectContaining({ uuid: hook.uuid, status: expect.objectContaining({ enabled: true, status: 'streaming' }) })]);
		expect(infos).toEqual([expect.stringContaining(`enabled hook ${hook.uuid} again by the health check: it had been disabled at the service`)]);
		expect(infos[0]).toContain('workflow "Payments" (wf42)');
		expect(await check()).toBe('healthy');
		expect(infos).toHaveLength(1);
	});

	it('resumes a hook the service interrupted after failed deliveries (enabled stays true)', async () => {
		const { staticData, hook } = await activeHook();
		// Nothing listens at WEBHOOK: each delivery fails, and the third in a row interrupts the hook.
		for (let height = 1; height <= 3; height++) await emu.injectBlock({ height, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1 }] });
		expect(hooksAtWebhook()[0].status).toMatchObject({ enabled: true, status: 'interrupted' });
		expect(await emu.injectBlock({ height: 4, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1 }] })).toEqual([]);

		expect(await (await checker(staticData))()).toBe('enabled');
		expect(hooksAtWebhook()[0].status).toMatchObject({ enabled: true, status: 'streaming' });
		expect(apiCalls()).toEqual([`GET /me/${hook.uuid}`, `PATCH /me/${hook.uuid}/enabled`]);
		expect(infos).toEqual([expect.stringContaining('the service had interrupted it after deliveries that did not go through')]);
		expect(await emu.injectBlock({ height: 5, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1 }] })).toHaveLength(1);
	});

	it('registers the hook again when it was deleted by hand, with the same definition, and remembers the new one', async () => {
		const { staticData, hook } = await activeHook();
		await deleteByHand(hook.uuid);
		expect(await (await checker(staticData))()).toBe('registered');
		const [again] = hooksAtWebhook();
		expect(hooksAtWebhook()).toHaveLength(1);
		expect(again.uuid).not.toBe(hook.uuid);
		expect(again.definition).toEqual(hook.definition);
		expect(again.status.enabled).toBe(true);
		expect((staticData.production as IDataObject).hookId).toBe(again.uuid);
		expect(infos).toEqual([expect.stringContaining(`hook ${hook.uuid} had been deleted at the service; registered it again as ${again.uuid}`)]);
	});

	it('takes over a hook posting to its URL instead of registering a second one', async () => {
		const { staticData, hook } = await activeHook();
		await deleteByHand(hook.uuid);
		// e.g. registered by the same workflow on another n8n main process
		await activateTrigger({});
		const [other] = hooksAtWebhook();
		await patch(other.uuid, false);
		emu.clearRequests();
		expect(await (await checker(staticData))()).toBe('registered');
		expect(hooksAtWebhook()).toEqual([expect.objectContaining({ uuid: other.uuid, status: expect.objectContaining({ enabled: true }) })]);
		expect(apiCalls().filter((call) => call.startsWith('POST'))).toEqual([]);
		expect((staticData.production as IDataObject).hookId).toBe(other.uuid);
	});

	it('never touches hooks posting to other URLs', async () => {
		const { staticData, hook } = await activeHook();
		const foreign = await foreignHook();
		await patch(foreign.uuid, false);
		await deleteByHand(hook.uuid);
		const before = emu.hooks(API_KEY).find((record) => record.uuid === foreign.uuid);
		expect(await (await checker(staticData))()).toBe('registered');
		expect(emu.hooks(API_KEY).find((record) => record.uuid === foreign.uuid)).toEqual(before);
	});

	it('has nothing to check when no hook is kept and none posts to its URL: one list, nothing changed', async () => {
		expect(await (await checker({}))()).toBe('nothing-to-check');
		expect(apiCalls()).toEqual(['GET /me/']);
	});

	it('takes over and enables the hook an activation registered but n8n was killed before keeping (the static data lost it)', async () => {
		const { hook } = await activeHook();
		await deleteByHand(hook.uuid);
		const registered = await fetch(`${emu.url}/me/`, { method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify(hook.definition) });
		const { uuid } = (await registered.json()) as { uuid: string };
		expect(hooksAtWebhook()[0].status).toMatchObject({ status: 'new', enabled: false });
		const staticData: IDataObject = {};
		expect(await (await checker(staticData))()).toBe('enabled');
		expect(hooksAtWebhook()).toEqual([expect.objectContaining({ uuid, status: expect.objectContaining({ enabled: true, status: 'streaming' }) })]);
		expect((staticData.production as IDataObject).hookId).toBe(uuid);
		expect(infos[0]).toContain(`no hook was kept for this workflow (n8n stopped while activating it); took over hook ${uuid}`);
	});

	it('raises what the service answered when it cannot be asked', async () => {
		const { staticData } = await activeHook();
		emu.failNext(3, 503);
		await expect((await checker(staticData))()).rejects.toThrow(/503|unavailable/i);
	});
});

describe('the health check beside activation and deactivation', () => {
	it('does not run while the node is being activated, so it cannot register a second hook', async () => {
		const staticData: IDataObject = {};
		emu.configure({ latencyMs: 150 });
		const activation = activateTrigger(staticData);
		await until(() => emu.requests.length > 0); // activation holds the node's turn from its first request on
		const check = await checker(staticData);
		expect(await check()).toBe('busy');
		await activation;
		emu.configure({ latencyMs: 0 });
		expect(await check()).toBe('healthy');
		expect(hooksAtWebhook()).toHaveLength(1);
	});

	it('leaves no hook behind when deactivation comes while it registers one again', async () => {
		const { staticData, hook } = await activeHook();
		await deleteByHand(hook.uuid);
		// n8n hands delete() the static data it saved at activation, without the check's new UUID.
		const saved = structuredClone(staticData);
		emu.configure({ latencyMs: 100 });
		const check = await checker(staticData);
		emu.clearRequests();
		const healing = check();
		await until(() => emu.requests.length > 0); // the check holds the node's turn
		const deactivation = runTriggerHook('delete', saved);
		expect(await healing).toBe('registered');
		await deactivation;
		emu.configure({ latencyMs: 0 });
		expect(hooksAtWebhook()).toEqual([]);
	});

	it('deactivation deletes the hook the check registered again, though n8n only saved the old UUID', async () => {
		const { staticData, hook } = await activeHook();
		const saved = structuredClone(staticData);
		await deleteByHand(hook.uuid);
		await (await checker(staticData))();
		expect(hooksAtWebhook()).toHaveLength(1);
		const foreign = await foreignHook();
		await runTriggerHook('delete', saved);
		expect(hooksAtWebhook()).toEqual([]);
		expect(emu.hooks(API_KEY).map((record) => record.uuid)).toEqual([foreign.uuid]);
	});

	it('enables on activation a hook an earlier activation registered but was stopped before enabling (n8n killed)', async () => {
		const { hook } = await activeHook();
		await deleteByHand(hook.uuid);
		const registered = await fetch(`${emu.url}/me/`, { method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify(hook.definition) });
		const { uuid } = (await registered.json()) as { uuid: string };
		expect(hooksAtWebhook()[0].status).toMatchObject({ status: 'new', enabled: false });
		// The killed activation's static data never reached n8n's database.
		expect(await runTriggerHook('checkExists', {})).toBe(true);
		expect(hooksAtWebhook()).toEqual([expect.objectContaining({ uuid, status: expect.objectContaining({ enabled: true, status: 'streaming' }) })]);
		expect(infos).toEqual([expect.stringContaining(`enabled hook ${uuid} again on activation: it had never been enabled (an earlier activation stopped before enabling it)`)]);
	});

	it('re-enabling on activation (n8n start-up) also resumes an interrupted hook, and says so', async () => {
		const { staticData, hook } = await activeHook();
		emu.interruptHook(hook.uuid);
		expect(await runTriggerHook('checkExists', staticData)).toBe(true);
		expect(hooksAtWebhook()[0].status).toMatchObject({ enabled: true, status: 'streaming' });
		expect(infos).toEqual([expect.stringContaining(`enabled hook ${hook.uuid} again on activation: the service had interrupted it`)]);
	});
});

describe('the schedule trigger() keeps', () => {
	const every = (minutes: number) => triggerParameters({ options: { healthCheckMinutes: minutes } });
	const gets = (uuid: string) => emu.requests.filter((request) => request.method === 'GET' && request.path.endsWith(`/me/${uuid}`)).length;

	it('checks every interval until n8n closes it, then never again', async () => {
		const { staticData, hook } = await activeHook();
		await patch(hook.uuid, false);
		const { response } = await startTriggerOf(staticData, { parameters: every(0.01) }); // 600 ms
		for (let waited = 0; gets(hook.uuid) < 3 && waited < 5000; waited += 100) await sleep(100);
		expect(gets(hook.uuid)).toBeGreaterThanOrEqual(3);
		expect(hooksAtWebhook()[0].status.enabled).toBe(true);
		expect(infos.filter((line) => line.includes('enabled hook'))).toHaveLength(1);
		await response.closeFunction!();
		const after = gets(hook.uuid);
		await sleep(1500);
		expect(gets(hook.uuid)).toBe(after);
	});

	it('warns once while the service cannot be reached, and says when it can again', async () => {
		const { staticData, hook } = await activeHook();
		emu.failNext(6, 503, { match: { method: 'GET' } });
		const { response } = await startTriggerOf(staticData, { parameters: every(0.01) });
		for (let waited = 0; gets(hook.uuid) < 9 && waited < 15_000; waited += 100) await sleep(100);
		await response.closeFunction!();
		// (The engine serves no webhook at WEBHOOK, so the gap step also says once that it cannot see what n8n took.)
		const unreachable = warnings.filter((line) => line.includes('the health check did not complete'));
		expect(unreachable).toHaveLength(1);
		expect(unreachable[0]).toMatch(/the health check did not complete: .*503.*this is logged once until a check completes/s);
		expect(infos).toContainEqual(expect.stringContaining('the health check reaches the service again'));
	});

	it('runs no check at all with an interval of 0', async () => {
		const { staticData } = await activeHook();
		const { response } = await startTriggerOf(staticData, { parameters: every(0) });
		expect(response.closeFunction).toBeUndefined();
		await sleep(300);
		expect(apiCalls()).toEqual([]);
	});
});

describe('test deliveries (Listen for test event), which n8n-core hands to trigger() in manual mode', () => {
	const delivery = async () => {
		await runTriggerHook('create', {}, { mode: 'manual', webhookUrl: WEBHOOK.replace('/webhook/', '/webhook-test/') });
		const [report] = await emu.injectBlock(
			makeBlock({ height: 7, transactions: [1, 2, 3].map((amount) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount })) }),
		);
		return report.payload;
	};

	it('outputs exactly the items webhook() made of the delivery', async () => {
		const payload = await delivery();
		const production = await runWebhook({ nodeType: triggerNode, credentialTypes, credentials: credentialsFor(emu), parameters: triggerParameters(), headers: { 'x-hook-consumer-secret': CONSUMER_SECRET }, body: payload, staticData: {} });
		const test = await runTestDelivery({ nodeType: triggerNode, credentialTypes, credentials: credentialsFor(emu), parameters: triggerParameters(), headers: { 'x-hook-consumer-secret': CONSUMER_SECRET }, body: payload, staticData: {} });
		expect(test.status).toBe(200);
		expect(test.error).toBeUndefined();
		expect(test.items).toHaveLength(3);
		expect(test.items!.map((item) => item.json)).toEqual(production.response.workflowData![0].map((item) => item.json));
		expect(test.items!.map((item) => item.json.txHash)).toEqual(payload.event.apply[0].transactions.map((tx) => tx.transaction_identifier.hash));
	});

	it('fails the test run with what to change when the execution runs in another process than the delivery', async () => {
		const { response } = await startTriggerOf({}, { mode: 'manual', activation: 'manual' });
		await expect(response.manualTriggerFunction!()).rejects.toThrow('The test delivery was received by another n8n process than the one running this test');
	});
});

describe("the check's call to the trigger's own webhook, where it cannot be reached (regular mode behind an ingress)", () => {
	/** Takes the connection and never answers (a proxy or NAT that drops it). */
	let blackHole: Server;
	const held: Socket[] = [];
	beforeAll(async () => {
		blackHole = createServer((socket) => void held.push(socket));
		await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
	});
	afterAll(async () => {
		for (const socket of held) socket.destroy();
		await new Promise((resolve) => blackHole.close(resolve));
	});

	const addresses: Array<[string, () => string, number]> = [
		['refused', () => 'http://127.0.0.1:1', 8],
		['a name that does not resolve', () => 'http://n8n-webhook.invalid:5678', 9],
		['taking the connection and never answering', () => `http://127.0.0.1:${(blackHole.address() as AddressInfo).port}`, 10],
	];
	it.each(addresses)('%s: hears what this process took itself, says why, and judges on it', async (_, address, height) => {
		const { staticData, hook } = await activeHook();
		const [report] = await emu.injectBlock(makeBlock({ height, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: height }] }));
		expect(report.hookUuid).toBe(hook.uuid);
		expect((await deliverToTrigger(report.payload, staticData)).response.webhookResponse).toEqual(expect.objectContaining({ received: true }));
		const { context } = await startTriggerOf(staticData, { parameters: triggerParameters({ options: { healthCheckMinutes: 0, internalWebhookAddress: address() } }) });
		const { outcome, gaps } = await checkHookAndGaps(context);
		expect(outcome).toBe('healthy');
		expect(gaps?.blind).toBeUndefined();
		expect(gaps?.unreachable).toContain(`the trigger's webhook at ${address()}/webhook/`);
		expect(gaps?.callError).toBeTruthy();
		// The delivery this process took is what the check holds against the service's count: nothing missing, nothing replayed.
		expect(gaps?.received?.taken.flatMap((taken) => taken.a.map(([at]) => at))).toContain(height);
		expect(gaps?.replayed).toBe(0);
	}, 30_000);
});

describe("the check's call to the trigger's own webhook, where the public URL cannot be reached but n8n took a delivery", () => {
	let staticData: IDataObject;
	let hookUuid: string;
	let server: ReturnType<typeof createHttpServer>;
	/** Where the delivery came in: n8n's own server, as a stand-in handing each request to the trigger's webhook() through n8n-core. */
	let nearby: string;
	const path = new URL(WEBHOOK).pathname;
	beforeEach(async () => {
		({ staticData, hook: { uuid: hookUuid } } = await activeHook());
		server = createHttpServer((request, response) => {
			const chunks: Buffer[] = [];
			request.on('data', (chunk: Buffer) => chunks.push(chunk));
			request.on('end', () => {
				const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
				void deliverToTrigger(JSON.parse(Buffer.concat(chunks).toString()), staticData, triggerParameters(), { headers }).then((answer) => {
					response.writeHead(answer.status ?? 500, { 'content-type': 'application/json' }).end(JSON.stringify(answer.sentBody ?? {}));
				});
			});
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		nearby = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
	});
	afterEach(async () => {
		await new Promise((resolve) => server.close(resolve));
	});
	/** A check of the trigger of workflow `workflowId` (the public URL, WEBHOOK, a port nothing listens on: refused). */
	const check = async (workflowId?: string) => {
		const { context } = await startTriggerOf(staticData, { parameters: triggerParameters({ options: { healthCheckMinutes: 0 } }), ...(workflowId && { workflowId }) });
		return await checkHookAndGaps(context);
	};

	it('calls its webhook where that delivery came in: what n8n took heard, the state kept in the static data, nothing replayed', async () => {
		const [report] = await emu.injectBlock(makeBlock({ height: 11, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 11 }] }));
		// As express shows a delivery that came in through a proxy: the local end of the connection, IPv4 in IPv6 form.
		await deliverToTrigger(report.payload, staticData, triggerParameters(), { headers: {}, arrivedAt: { localAddress: '::ffff:127.0.0.1', localPort: (server.address() as AddressInfo).port, path } });
		expect(staticData.gaps).toBeUndefined();
		const { outcome, gaps } = await check();
		expect(outcome).toBe('healthy');
		expect({ unreachable: gaps?.unreachable, blind: gaps?.blind, nearby: gaps?.nearby, replayed: gaps?.replayed }).toEqual({ unreachable: undefined, blind: undefined, nearby, replayed: 0 });
		expect(gaps?.received?.taken.flatMap((taken) => taken.a.map(([at]) => at))).toContain(11);
		// Kept where n8n saves it (the webhook answered without an execution): the next start begins from it, and tries there first.
		expect(staticData.gaps).toEqual(expect.objectContaining({ hookId: hookUuid }));
		expect(staticData.checkVia).toBe(nearby);
	});

	it('after a restart, before this process took any delivery, calls it where the last check reached it: the first plan is kept before it replays', async () => {
		staticData.checkVia = nearby;
		// Another workflow id: a process that has taken no delivery of this trigger (n8n just started).
		const { gaps } = await check('wf42-restarted');
		expect({ unreachable: gaps?.unreachable, blind: gaps?.blind, nearby: gaps?.nearby }).toEqual({ unreachable: undefined, blind: undefined, nearby });
		expect(staticData.gaps).toEqual(expect.objectContaining({ hookId: hookUuid }));
	});
});
