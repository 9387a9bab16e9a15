/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** The trigger's webhook() called on a real n8n-core WebhookContext, built once, and timed: what parts 2 and 9 measure. */
import { performance } from 'perf_hooks';

import type { IDataObject, INodeParameters, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { StacksHooksApi } from '../../../credentials/StacksHooksApi.credentials';
import { StacksHooks } from '../../../nodes/StacksHooks/StacksHooks.node';
import { StacksHooksTrigger } from '../../../nodes/StacksHooksTrigger/StacksHooksTrigger.node';
import { runWebhook } from '../../support/engine/harness';
import { API_KEY, SECRET } from './payloads';
import { median } from './util';

export const credentialTypes = [new StacksHooksApi()];
export const trigger = new StacksHooksTrigger();
export const action = new StacksHooks();
export const credentials = (baseUrl: string) => ({ stacksHooksApi: { apiKey: API_KEY, network: 'testnet', baseUrl, consumerSecret: SECRET } });

/* webhook(): the trigger's own work per delivery ------------------------------------------------ */

export function check(response: IWebhookResponseData, expected: number, what: string): void {
	const items = response.workflowData?.[0]?.length;
	if (items !== expected) throw new Error(`${what}: expected ${expected} items, got ${items}`);
}

export const fmtCount = (n: number) => n.toLocaleString('en');

export const HOOK_UUID = '7c1f3a52-5b8e-4c1a-9a59-0b3f9cf1a0d7';

/**
 * A delivery, and a real n8n-core WebhookContext for it with the trigger's `parameters`, built once
 * by the harness's runWebhook: the node type handed to it is the trigger behind a wrapper whose
 * webhook() remembers the context it was called on. Every call must output `items` items.
 */
export async function prepare({ body, parameters, items: txCount }: { body: unknown; parameters: INodeParameters; items: number }) {
	const text = JSON.stringify(body);
	let context: IWebhookFunctions | undefined;
	const spy = Object.create(trigger) as StacksHooksTrigger;
	spy.webhook = async function (this: IWebhookFunctions) {
		// eslint-disable-next-line @typescript-eslint/no-this-alias -- the spy keeps the context n8n calls webhook() on
		context = this;
		return await trigger.webhook.call(this);
	};
	const options = {
		credentialTypes,
		credentials: credentials('http://127.0.0.1:9/hooks/v1'),
		parameters,
		headers: { 'content-type': 'application/json', 'x-hook-consumer-secret': SECRET },
		body: JSON.parse(text) as unknown,
		rawBody: text,
	};
	const first = await runWebhook({ ...options, nodeType: spy });
	check(first.response, txCount, 'runWebhook');
	const answer = first.sentBody as IDataObject | undefined;
	if (first.status !== 200 || answer?.received !== true || answer?.items !== txCount) {
		throw new Error(`runWebhook: answered ${first.status} ${JSON.stringify(answer)}, expected 200 {received: true, items: ${txCount}}`);
	}
	const ctx = context!;
	return {
		text,
		bytes: Buffer.byteLength(text),
		items: txCount,
		call: async () => await trigger.webhook.call(ctx),
		/** The harness's whole runWebhook: builds Workflow, additional data and context, then calls webhook(). */
		callThroughHarness: async () => (await runWebhook({ ...options, nodeType: trigger })).response,
	};
}

/** Median time per call (ms) over `batches` batches of `perBatch` calls, after `warmup` calls. */
export async function timePerCall(fn: () => unknown, { warmup, batches, perBatch }: { warmup: number; batches: number; perBatch: number }) {
	for (let i = 0; i < warmup; i++) await fn();
	const samples: number[] = [];
	for (let b = 0; b < batches; b++) {
		const start = performance.now();
		for (let i = 0; i < perBatch; i++) await fn();
		samples.push((performance.now() - start) / perBatch);
	}
	return median(samples);
}

