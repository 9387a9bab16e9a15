/** What the node tests share: the real nodes and credential, an emulator account, and runners bound to them. */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { StacksHooksApi } from '../../../credentials/StacksHooksApi.credentials';
import { StacksHooks } from '../../../nodes/StacksHooks/StacksHooks.node';
import { StacksHooksTrigger } from '../../../nodes/StacksHooksTrigger/StacksHooksTrigger.node';
import { type Emulator, startEmulator } from '../../emulator';
import { type CredentialsMap, runHookMethod, runListSearch, runNode, runWebhook, type RunWebhookOptions, startTrigger } from './harness';

export const API_KEY = 'engine-test-key';
export const CONSUMER_SECRET = 'c0ffee'.repeat(10) + 'abcd';
export const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
export const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
/** On loopback, so that nothing a test does can reach outside this machine. */
export const WEBHOOK = 'https://127.0.0.1:9/webhook/3b1f8d2e-0b7a-4c59-9e53-6f7d0c1a2b3c/webhook';

export const credentialTypes = [new StacksHooksApi()];
export const actionNode = new StacksHooks();
export const triggerNode = new StacksHooksTrigger();

/** The emulator of the test file that called useEmulator() (each test file has its own copy of this module). */
export let emu: Emulator;

/**
 * Starts the file's emulator (the account API_KEY, CONSUMER_SECRET, then the `otherAccounts` given) before its tests,
 * resets it before each and closes it after them.
 */
export function useEmulator(otherAccounts: Array<{ apiKey: string; consumerSecret?: string }> = []): void {
	beforeAll(async () => {
		emu = await startEmulator({ accounts: [{ apiKey: API_KEY, consumerSecret: CONSUMER_SECRET }, ...otherAccounts] });
	});
	beforeEach(() => emu.reset());
	afterAll(async () => {
		await emu.close();
	});
}

export function credentialsFor(emu: Emulator, overrides: IDataObject = {}) {
	return {
		stacksHooksApi: {
			apiKey: API_KEY,
			network: 'testnet',
			baseUrl: emu.url,
			// As users now set it up: the API key only; the trigger reads the account's secret.
			consumerSecret: '',
			...overrides,
		},
	};
}

export async function runAction(
	emu: Emulator,
	parameters: INodeParameters,
	opts: { items?: IDataObject[] | INodeExecutionData[]; continueOnFail?: boolean; credentials?: IDataObject } = {},
) {
	return await runNode({
		nodeType: actionNode,
		credentialTypes,
		credentials: credentialsFor(emu, opts.credentials),
		parameters,
		items: opts.items,
		continueOnFail: opts.continueOnFail,
	});
}

export const hookById = (id: string) => ({ __rl: true, mode: 'id', value: id });

export function stxTransferFrom(sender: string) {
	return { filter: [{ type: 'stx_transfer', sender }] };
}

/** The trigger's parameters as n8n saves them: STX transfers from ALICE, one item per transaction. */
export function triggerParameters(overrides: INodeParameters = {}): INodeParameters {
	return { events: stxTransferFrom(ALICE), hookName: '', output: 'transaction', rollbacks: 'include', options: {}, ...overrides };
}

export interface TriggerHookOptions {
	parameters?: INodeParameters;
	webhookUrl?: string;
	mode?: 'trigger' | 'manual';
	/** The webhook methods' activation mode ('activate' unless said; 'init': n8n's start). */
	activation?: 'activate' | 'init';
	/** The whole credentials map (default: credentialsFor(emu)). */
	credentials?: CredentialsMap;
	workflowId?: string;
}

/** The trigger node of the workflow "Payments" (wf42), as both runners below hand it to the harness. */
function triggerOf(staticData: IDataObject, opts: Omit<TriggerHookOptions, 'activation'>) {
	return {
		nodeType: triggerNode,
		credentialTypes,
		credentials: opts.credentials ?? credentialsFor(emu),
		parameters: opts.parameters ?? triggerParameters(),
		staticData,
		mode: opts.mode ?? 'trigger',
		workflowName: 'Payments',
		workflowId: opts.workflowId ?? 'wf42',
	};
}

/** One of the trigger's webhook methods, as n8n runs it for the workflow at WEBHOOK. */
export function runTriggerHook(method: 'checkExists' | 'create' | 'delete', staticData: IDataObject, opts: TriggerHookOptions = {}) {
	return runHookMethod({ ...triggerOf(staticData, opts), method, webhookUrl: opts.webhookUrl ?? WEBHOOK, ...(opts.activation && { activation: opts.activation }) });
}

/** The trigger's trigger(): its health checks, or (mode 'manual') a test run's output. */
export function startTriggerOf(staticData: IDataObject, opts: Omit<TriggerHookOptions, 'activation'> & { activation?: 'activate' | 'init' | 'manual' } = {}) {
	return startTrigger({ ...triggerOf(staticData, opts), activation: opts.activation, webhookUrl: opts.webhookUrl ?? (opts.mode === 'manual' ? undefined : WEBHOOK) });
}

/** What n8n does on activation and at start-up: create only when checkExists said no. */
export async function activateTrigger(staticData: IDataObject = {}, opts: TriggerHookOptions = {}): Promise<IDataObject> {
	if (!(await runTriggerHook('checkExists', staticData, opts))) await runTriggerHook('create', staticData, opts);
	return staticData;
}

/** A delivery with the account's right secret to the trigger's webhook(), as n8n hands it over after activation. */
export function deliverToTrigger(body: unknown, staticData: IDataObject, parameters: INodeParameters = triggerParameters(), extra: Pick<RunWebhookOptions, 'arrivedAt' | 'headers'> = { headers: {} }) {
	return runWebhook({
		nodeType: triggerNode,
		credentialTypes,
		credentials: credentialsFor(emu),
		parameters,
		headers: { 'content-type': 'application/json', 'x-hook-consumer-secret': CONSUMER_SECRET, ...extra.headers },
		body,
		staticData,
		...(extra.arrivedAt && { arrivedAt: extra.arrivedAt }),
		// The workflow the trigger's other runners stand for (triggerOf): what a delivery notes, its health check reads.
		workflowId: 'wf42',
	});
}

/** Registers a hook through the node (fields mode) and returns its record. */
export async function registerThroughNode(emu: Emulator, name: string, events: INodeParameters = stxTransferFrom(ALICE)) {
	const { items, error } = await runAction(emu, {
		resource: 'hook',
		operation: 'create',
		name,
		webhookUrl: WEBHOOK,
		events,
	});
	if (error) throw error;
	return items[0].json;
}

export async function listSearch(emu: Emulator, filter?: string, paginationToken?: string) {
	return await runListSearch({
		nodeType: actionNode,
		credentialTypes,
		credentials: credentialsFor(emu),
		method: 'searchHooks',
		filter,
		paginationToken,
	});
}

export { runHookMethod, runWebhook };
