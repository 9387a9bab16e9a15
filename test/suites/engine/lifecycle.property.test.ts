/* eslint-disable no-console, @n8n/community-nodes/require-node-api-error, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The life of one workflow's Stacks Hooks Trigger, as random sequences of what n8n, the service and time do
 * to it, run through n8n-core's real hook, trigger and webhook contexts against the emulator, and checked
 * against a model after every step (fast-check's model-based testing: fc.commands + fc.asyncModelRun).
 *
 * What n8n does is modelled on n8n 2.41's own code (packages/cli: ActiveWorkflowManager, WorkflowService,
 * TestWebhooks, WebhookService), with the static data as n8n keeps it: a copy in its database ("persisted":
 * loaded for activation, deactivation, deliveries; saved after a successful activation, after a deletion of
 * the webhooks, after a delivery) and, while the workflow runs, the activation's copy in memory, which the
 * trigger's health check shares and changes without it ever being saved.
 *
 * Default: 500 sequences of up to 25 steps (`npm test`; 35-60 s on 2 cores). Long run, 20,000 sequences
 * (about 20 min: 3,000 took 3 min):
 *   FC_RUNS_FACTOR=40 npx jest -c test/jest.config.js test/suites/engine/lifecycle.property.test.ts
 * Replay a failure: FC_SEED=<seed printed> with the same command (fast-check also prints the failing
 * sequence, shrunk, and its path).
 *
 * To stay within budget the transport's time limit is 250 ms here (the product's: 30 s) and its back-off
 * waits (1 s, 2 s, or the service's retry-after) are a hundredth of the product's: the pacer's pause() is
 * scaled, nothing else of the transport is changed (test/suites/engine/transport.test.ts checks the real
 * waits).
 */
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import type { IDataObject, INodeParameters, ITriggerFunctions } from 'n8n-workflow';

import { secretDigest } from '../../../nodes/StacksHooksTrigger/secret/consumerSecret';
import type { HealthCheckOutcome } from '../../../nodes/StacksHooksTrigger/healthCheck/check';
import { checkHookHealth } from '../../../nodes/StacksHooksTrigger/healthCheck/run';
import { type HookRecord, makeBlock } from '../../emulator';
import {
	ALICE,
	API_KEY,
	BOB,
	CONSUMER_SECRET,
	credentialsFor,
	credentialTypes,
	emu,
	runTriggerHook,
	startTriggerOf,
	stxTransferFrom,
	triggerNode,
	triggerParameters,
	useEmulator,
	WEBHOOK,
} from '../../support/engine/fixtures';
import { n8nLogger, runTestDelivery, runWebhook } from '../../support/engine/harness';
import { propertyParameters, replayHint, SEED } from '../../support/properties';

jest.mock('../../../nodes/shared/constants', () => ({
	...jest.requireActual<object>('../../../nodes/shared/constants'),
	REQUEST_TIMEOUT_MS: 250,
}));
jest.mock('../../../nodes/shared/transport/pacing', () => {
	const actual = jest.requireActual<typeof import('../../../nodes/shared/transport/pacing')>('../../../nodes/shared/transport/pacing');
	const scaled = new Map<string, ReturnType<typeof actual.pacerFor>>();
	return {
		...actual,
		pacerFor: (accountKey: string) => {
			let pacer = scaled.get(accountKey);
			if (!pacer) {
				const real = actual.pacerFor(accountKey);
				pacer = {
					acquire: async () => await real.acquire(),
					update: (headers: Parameters<typeof real.update>[0]) => real.update(headers),
					pause: (ms: number) => real.pause(ms / 100),
				} as unknown as typeof real;
				scaled.set(accountKey, pacer);
			}
			return pacer;
		},
	};
});

const RUNS = 500;
const MAX_STEPS = 25;
const OTHER_KEY = 'engine-test-key-2';
const OTHER_URL = 'https://127.0.0.1:9/webhook/0c9e7f3a-5d21-4b8e-a6f4-2e1d9c8b7a60/webhook';
const TEST_URL = WEBHOOK.replace('/webhook/', '/webhook-test/');
const MINUTE = 60_000;

useEmulator([{ apiKey: OTHER_KEY, consumerSecret: 'b0b0'.repeat(16) }]);
jest.setTimeout(30 * 60_000);

// ---------------------------------------------------------------------------------------------
// The trigger's parameters: a few event filters and hook options, with what the service must then hold.

const EVENTS = [
	{ param: stxTransferFrom(ALICE), service: [{ type: 'stx_transfer', sender: ALICE }] },
	{ param: stxTransferFrom(BOB), service: [{ type: 'stx_transfer', sender: BOB }] },
	{ param: { filter: [{ type: 'stx_event' }, { type: 'coinbase' }] }, service: [{ type: 'stx_event' }, { type: 'coinbase' }] },
];
const OPTIONS = [
	{ param: {}, service: {} },
	{ param: { decodeClarityValues: true }, service: { decode_clarity_values: true } },
	{ param: { includeBlockMetadata: true, decodeClarityValues: false }, service: { include_block_metadata: true } },
];

/** As n8n saves them; the schedule of health checks is off (the model runs each check itself). */
function parametersOf(events: number, options: number): INodeParameters {
	return triggerParameters({ events: EVENTS[events].param, options: { ...OPTIONS[options].param, healthCheckMinutes: 0 } });
}

/** Options that are off (false, null) are left out: the service may echo them either way. */
function setOptions(options: unknown): IDataObject {
	return Object.fromEntries(Object.entries((options ?? {}) as IDataObject).filter(([, value]) => value !== false && value !== null && value !== undefined));
}

// ---------------------------------------------------------------------------------------------
// Model and real state.

/** The requests a fault may be aimed at (any request when none). */
const TARGETS = {
	'GET': { method: 'GET' },
	'POST': { method: 'POST' },
	'PATCH': { method: 'PATCH' },
	'DELETE': { method: 'DELETE' },
	'GET /me/ (list)': { method: 'GET', path: /\/me\/$/ },
	'POST /me/ (register)': { method: 'POST', path: /\/me\/$/ },
	'GET /me/{uuid}': { method: 'GET', path: /\/me\/[0-9a-f-]{36}$/ },
	'DELETE /me/{uuid}': { method: 'DELETE', path: /\/me\/[0-9a-f-]{36}$/ },
	'PATCH /me/{uuid}/enabled': { method: 'PATCH', path: /\/enabled$/ },
	'GET /me/secret': { method: 'GET', path: /\/me\/secret$/ },
} as const;

interface Fault {
	/** How many requests fail. */
	k: number;
	kind: 429 | 500 | 502 | 503 | 504 | 'reset' | 'hang';
	target?: keyof typeof TARGETS;
	/** Matching requests served first. */
	skip: number;
	/** reset/hang: the request is served, its answer lost. */
	afterServing?: boolean;
}

/** What the model knows of the production hook at WEBHOOK. */
type HookKnowledge =
	/** Exactly one, enabled, not interrupted, with the current parameters' definition. */
	| 'ok'
	/** That one, since disabled or interrupted at the service. */
	| 'stopped'
	/** That one, since deleted at the service. */
	| 'deleted'
	/** None at all. */
	| 'none'
	/** A step failed since: anything within the failure invariant. */
	| 'unknown';

interface Model {
	/** Published (n8n's database), whether or not its activation succeeded. */
	active: boolean;
	/** Its webhooks added and its trigger() started, in memory. */
	running: boolean;
	events: number;
	options: number;
	hook: HookKnowledge;
	/** The account's secrets, the current one last. */
	secrets: string[];
	/** The secret whose digest n8n's saved static data holds (the trigger accepts it without asking). */
	kept: string | undefined;
	/**
	 * When a delivery last made the trigger read the secret (this process's clock), as the two records the trigger keeps of
	 * it: the saved static data's (lost with it), and this process's memory (forgotten when the workflow is deactivated:
	 * nodeMemory.ts; kept by Restart, which here stands for n8n's start in the same process). Either one holds a read back.
	 */
	lastReadAt: { saved: number; inMemory: number };
	/** Armed for the next step that calls the trigger. */
	fault: Fault | undefined;
}

interface Real {
	workflowId: string;
	/** The static data in n8n's database. */
	persisted: IDataObject;
	/** The running activation's static data, shared with its trigger(). */
	memory: IDataObject | undefined;
	trigger: ITriggerFunctions | undefined;
	/** Hooks of another URL and of another account, as set up: never to change. */
	others: HookRecord[];
}

/** As n8n saves it in its database: JSON (the Workflow wraps static data in proxies, which structuredClone refuses). */
const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const current = (m: Model) => m.secrets[m.secrets.length - 1];
const digestOf = (secret: string | undefined) => (secret === undefined ? undefined : secretDigest(secret));
const keptDigest = (data: IDataObject) => ((data.consumerSecret as IDataObject | undefined)?.sha256 as string | undefined) ?? undefined;

// This process's clock as the trigger sees it (Date.now): moved on by the model's "time passes".
const realNow = Date.now.bind(Date);
let clockOffset = 0;
const now = () => realNow() + clockOffset;

const stats = {
	sequences: 0,
	steps: 0,
	failedSteps: 0,
	byCommand: new Map<string, number>(),
	health: new Map<string, number>(),
	deliveries: { accepted: 0, refused: 0 },
	/** Restarts whose activation left a stopped hook to the first check, which brought it back. */
	leftForCheck: 0,
};
const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

// ---------------------------------------------------------------------------------------------
// The service, seen from outside.

const mine = () => emu.hooks(API_KEY).filter((hook) => hook.definition.action.url === WEBHOOK);
const testHooks = () => emu.hooks(API_KEY).filter((hook) => hook.definition.action.url === TEST_URL);
const othersNow = () => [
	...emu.hooks(API_KEY).filter((hook) => ![WEBHOOK, TEST_URL].includes(hook.definition.action.url)),
	...emu.hooks(OTHER_KEY),
];

async function byHand(method: string, path: string, apiKey = API_KEY, body?: unknown): Promise<Response> {
	const response = await fetch(`${emu.url}${path}`, {
		method,
		headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`${method} ${path} by hand: ${response.status} ${await response.text()}`);
	return response;
}

async function registerByHand(apiKey: string, url: string, name: string): Promise<void> {
	await byHand('POST', '/me/', apiKey, {
		name,
		version: '1',
		chain: 'stacks',
		network: 'testnet',
		filters: { events: [{ type: 'stx_transfer', sender: ALICE }] },
		action: { type: 'http_post', url },
	});
}

function arm(m: Model): Fault | undefined {
	const fault = m.fault;
	m.fault = undefined;
	if (!fault) return undefined;
	const options = { ...(fault.target ? { match: TARGETS[fault.target] } : {}), skip: fault.skip };
	if (typeof fault.kind === 'number') emu.failNext(fault.k, fault.kind, options);
	else emu.dropNext(fault.k, fault.kind, { ...options, afterServing: fault.afterServing });
	return fault;
}

/** What is left of an armed fault does not outlive its step. */
const disarm = () => emu.failNext(0);

// ---------------------------------------------------------------------------------------------
// What n8n does, step by step (n8n 2.41, packages/cli).

interface Step {
	/** Some method of the trigger n8n called threw (n8n may have swallowed it). */
	failed: boolean;
	errors: string[];
}

async function attempt(step: Step, work: () => Promise<unknown>): Promise<boolean> {
	try {
		await work();
		return true;
	} catch (error) {
		step.failed = true;
		step.errors.push((error as Error).message);
		return false;
	}
}

const hookMethod = (r: Real, method: 'checkExists' | 'create' | 'delete', staticData: IDataObject, parameters: INodeParameters, mode: 'trigger' | 'manual' = 'trigger', activation: 'activate' | 'init' = 'activate') =>
	runTriggerHook(method, staticData, { parameters, workflowId: r.workflowId, mode, activation, webhookUrl: mode === 'manual' ? TEST_URL : WEBHOOK });

/**
 * clearWebhooks(): delete() on a workflow loaded from the database (its saved static data), which is saved
 * again when delete() succeeded. Errors are logged, not raised, by every caller modelled here.
 */
async function n8nClearsWebhooks(m: Model, r: Real, step: Step, parameters: INodeParameters): Promise<boolean> {
	const loaded = clone(r.persisted);
	// delete() forgets what this process kept of the node, whether or not the service answered (lifecycle.ts, remove).
	m.lastReadAt.inMemory = -Infinity;
	const ok = await attempt(step, () => hookMethod(r, 'delete', loaded, parameters));
	if (ok) r.persisted = loaded;
	return ok;
}

/**
 * ActiveWorkflowManager.add(): checkExists, then create when it said no, on a workflow loaded from the
 * database; its static data is saved after, and trigger() started on the same workflow object. On an error
 * addWebhooks() runs clearWebhooks() and raises; a user's activation ('activate', 'update') then rolls back
 * with remove(), i.e. clearWebhooks() once more, and leaves the workflow inactive; at start-up ('init') the
 * activation is queued to be tried again.
 */
async function n8nActivates(m: Model, r: Real, step: Step, parameters: INodeParameters, how: 'activate' | 'update' | 'init', checksOn = false): Promise<{ ok: boolean; hook: HookKnowledge }> {
	const memory = clone(r.persisted);
	const ok = await attempt(step, async () => {
		const activation = how === 'init' ? 'init' : 'activate';
		// With the checks on (as users have them), activation at n8n's start leaves a stopped hook to the first check
		// (lifecycle.ts); trigger() still gets them off below: the model runs each check itself.
		const seen = checksOn ? { ...parameters, options: { ...(parameters.options as IDataObject), healthCheckMinutes: 5 } } : parameters;
		if (!(await hookMethod(r, 'checkExists', memory, seen, 'trigger', activation))) await hookMethod(r, 'create', memory, seen, 'trigger', activation);
	});
	if (!ok) {
		let cleared = await n8nClearsWebhooks(m, r, step, parameters);
		if (how !== 'init') cleared = (await n8nClearsWebhooks(m, r, step, parameters)) || cleared;
		r.memory = undefined;
		r.trigger = undefined;
		// A delete() that succeeded leaves nothing behind of the failed activation.
		return { ok, hook: cleared ? 'none' : 'unknown' };
	}
	r.persisted = clone(memory);
	r.memory = memory;
	const { context } = await startTriggerOf(memory, { parameters, workflowId: r.workflowId, activation: how === 'init' ? 'init' : 'activate' });
	r.trigger = context;
	return { ok, hook: 'ok' };
}

/** The trigger's health check, as its schedule runs it, on the running activation's static data. */
async function healthCheck(r: Real, step: Step): Promise<HealthCheckOutcome | undefined> {
	let outcome: HealthCheckOutcome | undefined;
	await attempt(step, async () => {
		outcome = await checkHookHealth(r.trigger!);
	});
	if (outcome) count(stats.health, outcome);
	return outcome;
}

// ---------------------------------------------------------------------------------------------
// Invariants, after every step.

interface Before {
	mine: HookRecord[];
	test: HookRecord[];
}

function expectDelivering(m: Model, r: Real): void {
	const hooks = mine();
	expect(hooks).toHaveLength(1);
	const [hook] = hooks;
	expect(hook.status.enabled).toBe(true);
	expect(hook.status.status).not.toBe('interrupted');
	expect(hook.definition).toMatchObject({
		name: `n8n: Payments (${r.workflowId})`,
		network: 'testnet',
		filters: { events: EVENTS[m.events].service },
		action: { type: 'http_post', url: WEBHOOK },
	});
	expect(setOptions(hook.definition.options)).toEqual(OPTIONS[m.options].service);
	if (m.running) expect((r.memory?.production as IDataObject | undefined)?.hookId).toBe(hook.uuid);
}

function checkInvariants(m: Model, r: Real, before: Before, step: Step, touches: { production: boolean; test: boolean }): void {
	stats.steps++;
	if (step.failed) stats.failedSteps++;
	// Hooks of another URL, or of another account (even one posting to WEBHOOK), are never touched.
	expect(othersNow()).toEqual(r.others);
	if (!touches.production) expect(mine()).toEqual(before.mine);
	if (!touches.test) expect(testHooks()).toEqual(before.test);
	if (step.failed) expect(testHooks().length).toBeLessThanOrEqual(before.test.length + 1);
	// A failed step leaves at most one hook more than it found.
	if (step.failed) expect(mine().length).toBeLessThanOrEqual(before.mine.length + 1);
	if (m.hook === 'ok') expectDelivering(m, r);
	if (m.hook === 'none') expect(mine()).toEqual([]);
	// What n8n saved of the secret is what the model says the trigger learnt.
	expect(keptDigest(r.persisted)).toBe(digestOf(m.kept));
}

type Cmd = fc.AsyncCommand<Model, Real>;

/** A step: the state before, the fault armed (for steps calling the trigger), the run, the invariants. */
abstract class LifecycleStep implements Cmd {
	/** Whether the step calls the trigger (and so takes the armed fault), and which hooks it may change. */
	protected callsTrigger = true;
	protected touches = { production: true, test: false };

	abstract check(m: Readonly<Model>): boolean;

	protected abstract act(m: Model, r: Real, step: Step, fault: Fault | undefined): Promise<void>;

	abstract toString(): string;

	async run(m: Model, r: Real): Promise<void> {
		count(stats.byCommand, this.constructor.name);
		const before: Before = { mine: mine(), test: testHooks() };
		const step: Step = { failed: false, errors: [] };
		const fault = this.callsTrigger ? arm(m) : undefined;
		try {
			await this.act(m, r, step, fault);
		} finally {
			if (this.callsTrigger) disarm();
		}
		checkInvariants(m, r, before, step, this.touches);
	}
}

// ---------------------------------------------------------------------------------------------
// n8n's side.

/** The model after n8n's activation (or update): active and running only if it succeeded. */
function modelActivation(m: Model, { ok, hook }: Awaited<ReturnType<typeof n8nActivates>>): void {
	m.active = ok;
	m.running = ok;
	m.hook = hook;
	if (ok) m.kept = current(m);
}

class Activate extends LifecycleStep {
	check(m: Readonly<Model>): boolean {
		return !m.active;
	}

	toString(): string {
		return 'Activate';
	}

	protected async act(m: Model, r: Real, step: Step) {
		modelActivation(m, await n8nActivates(m, r, step, parametersOf(m.events, m.options), 'activate'));
	}
}

/**
 * remove(): clearWebhooks(), its error logged; the workflow is inactive either way, its trigger closed. With
 * `healthCheck`, a health check of the running trigger is under way at the same moment (started just before, or
 * just after, n8n's delete()): the node takes one at a time.
 */
class Deactivate extends LifecycleStep {
	constructor(private readonly healthCheck: 'none' | 'just before' | 'just after') {
		super();
	}

	check(m: Readonly<Model>): boolean {
		return m.active && (this.healthCheck === 'none' || m.running);
	}

	toString(): string {
		return this.healthCheck === 'none' ? 'Deactivate' : `Deactivate(a health check starting ${this.healthCheck})`;
	}

	protected async act(m: Model, r: Real, step: Step) {
		const parameters = parametersOf(m.events, m.options);
		let cleared: boolean;
		if (this.healthCheck === 'none') cleared = await n8nClearsWebhooks(m, r, step, parameters);
		else if (this.healthCheck === 'just before') [, cleared] = await Promise.all([healthCheck(r, step), n8nClearsWebhooks(m, r, step, parameters)]);
		else [cleared] = await Promise.all([n8nClearsWebhooks(m, r, step, parameters), healthCheck(r, step)]);
		m.active = false;
		m.running = false;
		r.memory = undefined;
		r.trigger = undefined;
		m.hook = cleared ? 'none' : 'unknown';
	}
}

/**
 * n8n restarting: what was in memory is gone (the health check's changes to the static data with it); the
 * workflow is activated again ('init'), and trigger()'s first health check runs soon after. With `lost`,
 * the saved static data is gone too (e.g. a restored database).
 */
class Restart extends LifecycleStep {
	constructor(
		private readonly lost: boolean,
		/** Health checks on: a hook stopped while n8n was down is left to the first check, which brings it back. */
		private readonly checksOn: boolean,
	) {
		super();
	}

	check(m: Readonly<Model>): boolean {
		return m.active;
	}

	toString(): string {
		return `Restart(${this.lost ? 'static data lost' : 'static data kept'}, checks ${this.checksOn ? 'on' : 'off'})`;
	}

	protected async act(m: Model, r: Real, step: Step) {
		r.memory = undefined;
		r.trigger = undefined;
		if (this.lost) {
			r.persisted = {};
			m.kept = undefined;
			m.lastReadAt.saved = -Infinity;
		}
		const stoppedBefore = m.hook === 'stopped';
		// A check that failed before (TimePasses) left it unknown: stopped still, or not.
		const unknownBefore = m.hook === 'unknown';
		const { ok, hook } = await n8nActivates(m, r, step, parametersOf(m.events, m.options), 'init', this.checksOn);
		m.running = ok;
		m.hook = hook;
		if (!ok) return;
		m.kept = current(m);
		// Right after an activation the hook delivers, nothing to repair; unless the checks are on and it had stopped: then it
		// is still stopped (the service's status is the note of where), and the first check brings it back. After a check that
		// failed the model does not know whether it had stopped; the service says.
		const stoppedNow = () => mine()[0]?.status.enabled === false || mine()[0]?.status.status === 'interrupted';
		const leftStopped = this.checksOn && (stoppedBefore || (unknownBefore && stoppedNow()));
		if (leftStopped) {
			m.hook = 'stopped';
			expect(stoppedNow()).toBe(true);
		}
		const outcome = await healthCheck(r, step);
		// A check that failed (an injected fault) may have enabled the hook before its answer was lost: the model no longer
		// knows whether it is stopped, as after a failed check of TimePasses.
		if (outcome === undefined && leftStopped) m.hook = 'unknown';
		if (outcome !== undefined) {
			if (unknownBefore && this.checksOn) expect(['healthy', 'enabled']).toContain(outcome);
			else expect(outcome).toBe(leftStopped ? 'enabled' : 'healthy');
			stats.leftForCheck += leftStopped ? 1 : 0;
			m.hook = 'ok';
		}
	}
}

/** Saving other events or options of an active workflow: n8n removes the old version's webhooks, then adds the new version's. */
class Edit extends LifecycleStep {
	constructor(
		private readonly events: number,
		private readonly options: number,
	) {
		super();
	}

	check(m: Readonly<Model>): boolean {
		return m.active;
	}

	toString(): string {
		return `Edit(events ${this.events}, options ${this.options})`;
	}

	protected async act(m: Model, r: Real, step: Step) {
		await n8nClearsWebhooks(m, r, step, parametersOf(m.events, m.options));
		r.memory = undefined;
		r.trigger = undefined;
		m.events = this.events;
		m.options = this.options;
		modelActivation(m, await n8nActivates(m, r, step, parametersOf(m.events, m.options), 'update'));
	}
}

/**
 * "Listen for test event" (TestWebhooks): checkExists/create in manual mode at the test URL, on a workflow
 * whose static data is empty or the saved one (`start`); maybe one test delivery, with the static data kept
 * from create(); then delete(), with that static data or none (`carried`: n8n keeps it in its registration
 * cache, which may not carry it). A failed create() is followed by the same delete().
 */
class Listen extends LifecycleStep {
	constructor(
		private readonly start: 'empty' | 'saved',
		private readonly carried: boolean,
		private readonly deliver: boolean,
	) {
		super();
		this.touches = { production: false, test: true };
	}

	check(): boolean {
		return true;
	}

	toString(): string {
		return `Listen(start ${this.start}, ${this.carried ? 'carried' : 'not carried'}${this.deliver ? ', a test delivery' : ''})`;
	}

	protected async act(m: Model, r: Real, step: Step, fault: Fault | undefined) {
		const parameters = parametersOf(m.events, m.options);
		const listening = this.start === 'saved' ? clone(r.persisted) : {};
		const created = await attempt(step, async () => {
			if (!(await hookMethod(r, 'checkExists', listening, parameters, 'manual'))) await hookMethod(r, 'create', listening, parameters, 'manual');
		});
		if (created) {
			expect(testHooks()).toHaveLength(1);
			expect(testHooks()[0].status.enabled).toBe(true);
		}
		if (created && this.deliver) {
			const secret = current(m);
			const result = await runTestDelivery({
				nodeType: triggerNode,
				credentialTypes,
				credentials: credentialsFor(emu),
				parameters,
				headers: { 'content-type': 'application/json', 'x-hook-consumer-secret': secret },
				body: deliveryBody(),
				staticData: listening,
				workflowId: r.workflowId,
			});
			// create() kept the digest of the account's secret just now: accepted without asking, and run.
			if (!fault) {
				expect(result.status).toBe(200);
				expect(result.error).toBeUndefined();
				expect(result.items).toHaveLength(1);
			}
		}
		const stopped = await attempt(step, () => hookMethod(r, 'delete', this.carried ? listening : {}, parameters, 'manual'));
		if (stopped) expect(testHooks()).toEqual([]);
	}
}

/** A delivery to the production URL while the workflow runs (n8n routes none otherwise), with the static data n8n loads and saves after. */
class Deliver extends LifecycleStep {
	constructor(private readonly secret: 'current' | 'previous' | 'never' | 'none') {
		super();
		this.touches = { production: false, test: false };
	}

	check(m: Readonly<Model>): boolean {
		return m.running;
	}

	toString(): string {
		return `Deliver(${this.secret} secret)`;
	}

	protected async act(m: Model, r: Real, _step: Step, fault: Fault | undefined) {
		const previous = m.secrets.length > 1 ? m.secrets[m.secrets.length - 2] : undefined;
		const presented =
			this.secret === 'current' ? current(m) : this.secret === 'previous' ? (previous ?? 'f'.repeat(64)) : this.secret === 'never' ? randomHex() : undefined;
		const loaded = clone(r.persisted);
		const result = await runWebhook({
			nodeType: triggerNode,
			credentialTypes,
			credentials: credentialsFor(emu),
			parameters: parametersOf(m.events, m.options),
			headers: { 'content-type': 'application/json', ...(presented === undefined ? {} : { 'x-hook-consumer-secret': presented }) },
			body: deliveryBody(),
			staticData: loaded,
			workflowId: r.workflowId,
		});
		r.persisted = loaded;
		const accepted = result.response.workflowData !== undefined;
		stats.deliveries[accepted ? 'accepted' : 'refused']++;
		expect(result.status).toBe(accepted ? 200 : 401);

		// No execution without the account's current secret, or the one the trigger was told (its saved digest; documented:
		// a rotation at the service is noticed at the first delivery that does not match).
		if (accepted) {
			expect(presented).toBeDefined();
			expect([current(m), m.kept]).toContain(presented);
		}
		// The trigger reads the secret again for a delivery that does not match, at most once a minute.
		const matches = presented !== undefined && presented === m.kept;
		const reads = !matches && now() - Math.max(m.lastReadAt.saved, m.lastReadAt.inMemory) >= MINUTE;
		if (!fault) {
			if (matches || (reads && presented === current(m))) expect(accepted).toBe(true);
			if (reads) m.kept = current(m);
		} else if (reads) {
			// The read may have failed: the model takes what n8n saved.
			m.kept = [current(m), m.kept].find((secret) => digestOf(secret) === keptDigest(r.persisted));
		}
		if (reads) m.lastReadAt = { saved: now(), inMemory: now() };
	}
}

// ---------------------------------------------------------------------------------------------
// The service's side.

class ByHand extends LifecycleStep {
	constructor(private readonly what: 'delete' | 'disable' | 'interrupt') {
		super();
		this.callsTrigger = false;
	}

	check(): boolean {
		return true;
	}

	toString(): string {
		return `ByHand(${this.what} the hook)`;
	}

	protected async act(m: Model) {
		const [hook] = mine();
		if (!hook) return;
		if (this.what === 'delete') await byHand('DELETE', `/me/${hook.uuid}`);
		else if (this.what === 'disable') await byHand('PATCH', `/me/${hook.uuid}/enabled`, API_KEY, { enabled: false });
		else emu.interruptHook(hook.uuid);
		if (this.what === 'delete' && (m.hook === 'ok' || m.hook === 'stopped')) m.hook = 'deleted';
		else if (m.hook === 'ok') m.hook = 'stopped';
	}
}

/** A step beside the trigger (at the service, or a fault to come): always possible, it calls nothing of the trigger's. */
abstract class AsideStep extends LifecycleStep {
	constructor() {
		super();
		this.callsTrigger = false;
		this.touches = { production: false, test: false };
	}

	check(): boolean {
		return true;
	}
}

class RotateSecret extends AsideStep {
	toString(): string {
		return 'RotateSecret';
	}

	protected async act(m: Model) {
		const secret = randomHex();
		emu.setConsumerSecret(secret, API_KEY);
		m.secrets.push(secret);
	}
}

/** The next step that calls the service from the trigger meets `k` failures (a status, a reset or hung connection). */
class FailNext extends AsideStep {
	constructor(private readonly fault: Fault) {
		super();
	}

	toString(): string {
		return `FailNext(${this.fault.k} × ${this.fault.kind}${this.fault.afterServing ? ' after serving' : ''}${this.fault.target ? ` on ${this.fault.target}` : ''}${this.fault.skip ? `, ${this.fault.skip} served first` : ''})`;
	}

	protected async act(m: Model) {
		m.fault = this.fault;
	}
}

/**
 * Time passes (this process's clock moves on): while the workflow runs, trigger()'s health check runs; while it
 * is active but its activation at start-up failed, n8n's queued activation is tried again.
 */
class TimePasses extends LifecycleStep {
	constructor(private readonly ms: number) {
		super();
	}

	check(): boolean {
		return true;
	}

	toString(): string {
		return `TimePasses(${this.ms / 1000} s)`;
	}

	protected async act(m: Model, r: Real, step: Step) {
		clockOffset += this.ms;
		if (m.running) {
			const outcome = await healthCheck(r, step);
			if (outcome === undefined) {
				m.hook = 'unknown';
				return;
			}
			const expected: Partial<Record<HookKnowledge, HealthCheckOutcome>> = { ok: 'healthy', stopped: 'enabled', deleted: 'registered' };
			if (expected[m.hook]) expect(outcome).toBe(expected[m.hook]);
			expect(['healthy', 'enabled', 'registered']).toContain(outcome);
			// Whatever happened to it at the service, the hook delivers again.
			m.hook = 'ok';
		} else if (m.active) {
			const { ok, hook } = await n8nActivates(m, r, step, parametersOf(m.events, m.options), 'init');
			m.running = ok;
			m.hook = hook;
			if (ok) m.kept = current(m);
		}
	}
}

// ---------------------------------------------------------------------------------------------

const randomHex = () => randomBytes(32).toString('hex');

function deliveryBody() {
	return {
		chainhook: { uuid: '9a7c1e52-3f0b-4d8e-a1c2-5b6d7e8f9a0b', name: 'payments' },
		event: {
			chain: 'stacks',
			network: 'testnet',
			apply: [makeBlock({ height: 7, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 5 }] })],
			rollback: [],
		},
	};
}

const faultArb: fc.Arbitrary<Fault> = fc.record(
	{
		k: fc.oneof({ weight: 5, arbitrary: fc.constant(1) }, { weight: 3, arbitrary: fc.constant(2) }, { weight: 2, arbitrary: fc.constant(3) }),
		kind: fc.oneof(
			{ weight: 6, arbitrary: fc.constantFrom<Fault['kind']>(429, 500, 502, 503, 504) },
			{ weight: 2, arbitrary: fc.constant<Fault['kind']>('reset') },
			{ weight: 1, arbitrary: fc.constant<Fault['kind']>('hang') },
		),
		target: fc.oneof(
			{ weight: 2, arbitrary: fc.constant(undefined) },
			{ weight: 5, arbitrary: fc.constantFrom(...(Object.keys(TARGETS) as Array<keyof typeof TARGETS>)) },
		),
		skip: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 3 }) }),
		afterServing: fc.boolean(),
	},
	{ requiredKeys: ['k', 'kind', 'skip'] },
).map((fault) => (typeof fault.kind === 'number' ? { ...fault, afterServing: undefined } : fault));

const weighted = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });

/** Weighted towards what makes the hook need repair, and what repairs it. */
const command: fc.Arbitrary<Cmd> = fc.oneof(
	weighted(3, fc.constant(new Activate())),
	weighted(1, fc.constantFrom<'none' | 'just before' | 'just after'>('none', 'none', 'just before', 'just after').map((healthCheck) => new Deactivate(healthCheck))),
	weighted(2, fc.tuple(fc.boolean(), fc.boolean()).map(([lost, checksOn]) => new Restart(lost, checksOn))),
	weighted(1, fc.tuple(fc.nat(EVENTS.length - 1), fc.nat(OPTIONS.length - 1)).map(([events, options]) => new Edit(events, options))),
	weighted(
		1,
		fc.tuple(fc.constantFrom<'empty' | 'saved'>('empty', 'saved'), fc.boolean(), fc.boolean()).map(([start, carried, deliver]) => new Listen(start, carried, deliver)),
	),
	weighted(2, fc.constantFrom<'current' | 'previous' | 'never' | 'none'>('current', 'current', 'previous', 'never', 'none').map((secret) => new Deliver(secret))),
	weighted(3, fc.constantFrom<'delete' | 'disable' | 'interrupt'>('delete', 'disable', 'interrupt').map((what) => new ByHand(what))),
	weighted(1, fc.constant(new RotateSecret())),
	weighted(2, faultArb.map((fault) => new FailNext(fault))),
	weighted(3, fc.constantFrom(30_000, 61_000, 5 * MINUTE).map((ms) => new TimePasses(ms))),
);

let workflows = 0;

async function setup(): Promise<{ model: Model; real: Real }> {
	emu.reset();
	emu.setConsumerSecret(CONSUMER_SECRET, API_KEY);
	await registerByHand(API_KEY, OTHER_URL, 'someone else\'s, same account');
	await registerByHand(OTHER_KEY, WEBHOOK, 'same URL, another account');
	await registerByHand(OTHER_KEY, OTHER_URL, 'another account');
	// Each sequence is another workflow: the trigger keeps a little per workflow in memory (secret reads).
	const workflowId = `lifecycle${++workflows}`;
	stats.sequences++;
	return {
		model: { active: false, running: false, events: 0, options: 0, hook: 'none', secrets: [CONSUMER_SECRET], kept: undefined, lastReadAt: { saved: -Infinity, inMemory: -Infinity }, fault: undefined },
		real: { workflowId, persisted: {}, memory: undefined, trigger: undefined, others: othersNow() },
	};
}

beforeAll(() => {
	emu.configure({ rateLimit: null, retryAfterSeconds: 1 });
	jest.spyOn(Date, 'now').mockImplementation(now);
	// The trigger logs every repair and failed check: thousands of lines.
	const logger = n8nLogger();
	jest.spyOn(logger, 'info').mockImplementation(() => undefined);
	jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterAll(() => jest.restoreAllMocks());

it(`keeps one delivering hook per active workflow, and none after deactivation, over ${propertyParameters(RUNS).numRuns} random lifecycles of up to ${MAX_STEPS} steps`, async () => {
	const started = realNow();
	try {
		await fc.assert(
			fc.asyncProperty(fc.commands([command], { maxCommands: MAX_STEPS, size: 'max' }), async (cmds) => {
				await fc.asyncModelRun(setup, cmds);
			}),
			{ ...propertyParameters(RUNS), endOnFailure: false },
		);
	} catch (error) {
		const cause = (error as Error).cause as Error | undefined;
		(error as Error).message += `\n${replayHint()}${cause ? `\n\nThe failing step's error:\n${cause.stack ?? String(cause)}` : ''}`;
		throw error;
	} finally {
		const seconds = ((realNow() - started) / 1000).toFixed(1);
		const byCommand = [...stats.byCommand].map(([name, n]) => `${name} ${n}`).join(', ');
		const health = [...stats.health].map(([name, n]) => `${name} ${n}`).join(', ');
		console.log(
			`lifecycle: seed ${SEED}, ${stats.sequences} sequences (${propertyParameters(RUNS).numRuns} runs asked), ${stats.steps} steps (${stats.failedSteps} failed by injected faults) in ${seconds} s; ` +
				`${byCommand}; health checks: ${health}; ${stats.leftForCheck} stopped hooks left to the first check at a start; deliveries: ${stats.deliveries.accepted} accepted, ${stats.deliveries.refused} refused; ${replayHint()}`,
		);
	}
});
