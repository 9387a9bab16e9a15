/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, @n8n/community-nodes/credential-password-field -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Proves the engine harness: throwaway node and credential types run through n8n-core against a
 * real local HTTP server.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { NodeApiError, NodeOperationError, VersionedNodeType } from 'n8n-workflow';
import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodeListSearchResult,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
	JsonObject,
} from 'n8n-workflow';

import {
	runHookMethod,
	runListSearch,
	runNode,
	runWebhook,
	testCredential,
} from '../../support/engine/harness';

// ---------------------------------------------------------------------------------------------
// A local server standing in for the remote API
// ---------------------------------------------------------------------------------------------

interface Seen {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: string;
}

const seen: Seen[] = [];
const remoteHooks = new Map<string, { url: string; name: string; webhookId?: string }>();
let server: http.Server;
let baseUrl = '';

function send(res: http.ServerResponse, status: number, body?: unknown) {
	if (body === undefined) {
		res.writeHead(status).end();
		return;
	}
	res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

beforeAll(async () => {
	server = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString()));
		req.on('end', () => {
			seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
			const url = new URL(req.url ?? '/', 'http://localhost');
			const key = req.headers['x-api-key'];
			if (url.pathname === '/me' || url.pathname === '/me/') {
				if (key === 'good-key') return send(res, 200, { user: 'harness', limit: url.searchParams.get('limit') });
				return send(res, 401, { message: 'bad key' });
			}
			if (key !== 'secret-key') return send(res, 401, { message: 'bad key' });
			const echo = /^\/echo\/([^/]+)$/.exec(url.pathname);
			if (echo) {
				if (echo[1] === 'missing') return send(res, 404, { message: 'No such thing' });
				return send(res, 200, { id: echo[1], sawKey: key });
			}
			if (url.pathname === '/hooks' && req.method === 'POST') {
				const parsed = JSON.parse(body) as { url: string; name: string; webhookId?: string };
				const id = `hook-${remoteHooks.size + 1}`;
				remoteHooks.set(id, parsed);
				return send(res, 201, { uuid: id });
			}
			if (url.pathname === '/hooks' && req.method === 'GET') {
				const filter = url.searchParams.get('filter') ?? '';
				const all = [
					{ uuid: 'h1', name: 'Alpha' },
					{ uuid: 'h2', name: 'Beta' },
					{ uuid: 'h3', name: 'Alphabet' },
				].filter((h) => h.name.toLowerCase().includes(filter.toLowerCase()));
				return send(res, 200, { results: all, next: url.searchParams.get('cursor') ? null : 'page-2' });
			}
			const one = /^\/hooks\/([^/]+)$/.exec(url.pathname);
			if (one) {
				const id = one[1];
				if (!remoteHooks.has(id)) return send(res, 404, { message: 'Hook not found' });
				if (req.method === 'DELETE') {
					remoteHooks.delete(id);
					return send(res, 204);
				}
				return send(res, 200, { uuid: id, ...remoteHooks.get(id) });
			}
			return send(res, 404, { message: 'Not found' });
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
	seen.length = 0;
});

// ---------------------------------------------------------------------------------------------
// Throwaway credential and node types
// ---------------------------------------------------------------------------------------------

class HarnessTestApi implements ICredentialType {
	name = 'harnessTestApi';

	displayName = 'Harness Test API';

	properties: INodeProperties[] = [
		{ displayName: 'API Key', name: 'apiKey', type: 'string', default: '', required: true },
		{ displayName: 'Base URL', name: 'baseUrl', type: 'string', default: '' },
		{ displayName: 'Secret', name: 'secret', type: 'string', default: 'default-secret' },
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { 'x-api-key': '={{$credentials.apiKey}}' } },
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl.replace(/\\/+$/, "") }}',
			url: '/me/',
			qs: { limit: 1 },
		},
	};
}

const credentialTypes = [new HarnessTestApi()];

function description(extra: Partial<INodeTypeDescription>): INodeTypeDescription {
	return {
		displayName: 'Harness Http',
		name: 'harnessHttp',
		group: ['transform'],
		version: 1,
		description: 'Throwaway node of the harness test',
		defaults: { name: 'Harness Http' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'harnessTestApi', required: true }],
		properties: [],
		...extra,
	};
}

class HarnessHttp implements INodeType {
	description = description({
		properties: [
			{ displayName: 'ID', name: 'id', type: 'string', default: '', required: true },
			{ displayName: 'Label', name: 'label', type: 'string', default: 'plain' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		const { baseUrl: base } = await this.getCredentials<{ baseUrl: string }>('harnessTestApi');
		for (let i = 0; i < items.length; i++) {
			try {
				const id = this.getNodeParameter('id', i) as string;
				const label = this.getNodeParameter('label', i) as string;
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'harnessTestApi',
					{ method: 'GET', url: `${base}/echo/${encodeURIComponent(id)}`, json: true },
				)) as IDataObject;
				out.push({ json: { ...response, label }, pairedItem: { item: i } });
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				if (error instanceof NodeApiError) {
					throw new NodeApiError(this.getNode(), error.cause as unknown as JsonObject, {
						itemIndex: i,
						message: `Lookup of "${String(this.getNodeParameter('id', i))}" failed`,
						httpCode: error.httpCode ?? undefined,
					});
				}
				throw error;
			}
		}
		return [out];
	}
}

class HarnessThrower implements INodeType {
	description = description({
		name: 'harnessThrower',
		displayName: 'Harness Thrower',
		defaults: { name: 'Harness Thrower' },
		credentials: [],
		properties: [{ displayName: 'Message', name: 'message', type: 'string', default: '' }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const message = this.getNodeParameter('message', i) as string;
			if (items[i].json.fail === true) {
				throw new NodeOperationError(this.getNode(), message, { itemIndex: i });
			}
			out.push({ json: { message }, pairedItem: { item: i } });
		}
		return [out];
	}
}

class HarnessTrigger implements INodeType {
	description = description({
		name: 'harnessTrigger',
		displayName: 'Harness Trigger',
		defaults: { name: 'Harness Trigger' },
		group: ['trigger'],
		inputs: [],
		outputs: ['main'],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'harness' }],
		properties: [{ displayName: 'Hook Name', name: 'hookName', type: 'string', default: 'n8n' }],
	});

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				if (data.hookId === undefined) return false;
				const { baseUrl: base } = await this.getCredentials<{ baseUrl: string }>('harnessTestApi');
				try {
					await this.helpers.httpRequestWithAuthentication.call(this, 'harnessTestApi', {
						method: 'GET',
						url: `${base}/hooks/${String(data.hookId)}`,
					});
					return true;
				} catch (error) {
					if ((error as NodeApiError).httpCode === '404') {
						delete data.hookId;
						return false;
					}
					throw error;
				}
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				const { baseUrl: base } = await this.getCredentials<{ baseUrl: string }>('harnessTestApi');
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'harnessTestApi',
					{
						method: 'POST',
						url: `${base}/hooks`,
						body: {
							url: this.getNodeWebhookUrl('default'),
							webhookId: this.getNode().webhookId,
							name: `${this.getNodeParameter('hookName') as string} ${this.getWorkflow().name ?? ''} ${this.getActivationMode()} ${this.getMode()}`,
						},
						json: true,
					},
				)) as { uuid: string };
				data.hookId = response.uuid;
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const data = this.getWorkflowStaticData('node');
				if (data.hookId === undefined) return true;
				const { baseUrl: base } = await this.getCredentials<{ baseUrl: string }>('harnessTestApi');
				await this.helpers.httpRequestWithAuthentication.call(this, 'harnessTestApi', {
					method: 'DELETE',
					url: `${base}/hooks/${String(data.hookId)}`,
				});
				delete data.hookId;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const { secret } = await this.getCredentials<{ secret: string }>('harnessTestApi');
		const headers = this.getHeaderData();
		if (headers['x-harness-secret'] !== secret) {
			this.getResponseObject().status(401).json({ error: 'bad secret' });
			return { noWebhookResponse: true };
		}
		const body = this.getBodyData();
		const req = this.getRequestObject() as unknown as { rawBody: Buffer };
		return {
			workflowData: [
				this.helpers.returnJsonArray({
					...body,
					raw: req.rawBody.toString(),
					hookId: this.getWorkflowStaticData('node').hookId as string,
					url: this.getNodeWebhookUrl('default') ?? '',
				}),
			],
		};
	}

	methods = {
		listSearch: {
			async searchHooks(
				this: ILoadOptionsFunctions,
				filter?: string,
				paginationToken?: string,
			): Promise<INodeListSearchResult> {
				const { baseUrl: base } = await this.getCredentials<{ baseUrl: string }>('harnessTestApi');
				const response = (await this.helpers.httpRequestWithAuthentication.call(
					this,
					'harnessTestApi',
					{
						method: 'GET',
						url: `${base}/hooks`,
						qs: { filter: filter ?? '', ...(paginationToken ? { cursor: paginationToken } : {}) },
						json: true,
					},
				)) as { results: Array<{ uuid: string; name: string }>; next: string | null };
				const prefix = (this.getCurrentNodeParameter('hookName') as string | undefined) ?? '';
				return {
					results: response.results.map((h) => ({ name: `${prefix}${h.name}`, value: h.uuid })),
					...(response.next ? { paginationToken: response.next } : {}),
				};
			},
		},
	};
}

const creds = () => ({ harnessTestApi: { apiKey: 'secret-key', baseUrl } });

// ---------------------------------------------------------------------------------------------
// runNode
// ---------------------------------------------------------------------------------------------

describe('runNode', () => {
	it('applies the generic header auth of the credential type, resolved from the credential data', async () => {
		const result = await runNode({
			nodeType: new HarnessHttp(),
			credentialTypes,
			credentials: creds(),
			parameters: { id: 'abc' },
		});
		expect(result.error).toBeUndefined();
		expect(seen).toHaveLength(1);
		expect(seen[0].url).toBe('/echo/abc');
		expect(seen[0].headers['x-api-key']).toBe('secret-key');
		expect(result.items).toEqual([
			{ json: { id: 'abc', sawKey: 'secret-key', label: 'plain' }, pairedItem: { item: 0 } },
		]);
	});

	it('resolves expression parameters per item and keeps pairedItem', async () => {
		const result = await runNode({
			nodeType: new HarnessHttp(),
			credentialTypes,
			credentials: creds(),
			parameters: { id: '={{ $json.id }}', label: '={{ "item-" + $itemIndex + "-" + $json.id.toUpperCase() }}' },
			items: [{ id: 'one' }, { json: { id: 'two' } }],
		});
		expect(result.error).toBeUndefined();
		expect(seen.map((s) => s.url)).toEqual(['/echo/one', '/echo/two']);
		expect(result.items.map((i) => i.json.label)).toEqual(['item-0-ONE', 'item-1-TWO']);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		// The node under test is the run's start node, the items its input.
		expect(Object.keys(result.runData)).toEqual(['Harness Http']);
	});

	it('with continueOnFail, turns a failing item into an error item and runs the next one', async () => {
		const result = await runNode({
			nodeType: new HarnessHttp(),
			credentialTypes,
			credentials: creds(),
			parameters: { id: '={{ $json.id }}' },
			items: [{ id: 'missing' }, { id: 'fine' }],
			continueOnFail: true,
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(2);
		expect(result.items[0].json.error).toEqual(expect.stringContaining('could not be found'));
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		expect(result.items[1].json).toMatchObject({ id: 'fine' });
	});

	it('surfaces a thrown NodeApiError with its message', async () => {
		const result = await runNode({
			nodeType: new HarnessHttp(),
			credentialTypes,
			credentials: creds(),
			parameters: { id: '={{ $json.id }}' },
			items: [{ id: 'missing' }, { id: 'never-reached' }],
		});
		expect(result.items).toEqual([]);
		expect(result.error).toBeInstanceOf(NodeApiError);
		expect(result.error?.message).toBe('Lookup of "missing" failed');
		expect((result.error as NodeApiError).httpCode).toBe('404');
		expect((result.error as NodeApiError).context.itemIndex).toBe(0);
		// What n8n stores in the execution: a plain copy.
		expect(result.reportedError).toMatchObject({
			name: 'NodeApiError',
			message: 'Lookup of "missing" failed',
			httpCode: '404',
		});
		expect(seen.map((s) => s.url)).toEqual(['/echo/missing']);
		expect(result.run.status).toBe('error');
	});

	it('surfaces a NodeOperationError; under continueOnFail a throwing execute() passes its input through', async () => {
		const result = await runNode({
			nodeType: new HarnessThrower(),
			parameters: { message: '=Broken {{ $json.name }}' },
			items: [{ name: 'x', fail: true }],
		});
		expect(result.error).toBeInstanceOf(NodeOperationError);
		expect(result.error?.message).toBe('Broken x');

		const handled = await runNode({
			nodeType: new HarnessThrower(),
			parameters: { message: '=Broken {{ $json.name }}' },
			items: [{ name: 'x', fail: true }, { name: 'y' }],
			continueOnFail: true,
		});
		// n8n's fallback when execute() throws under "continue": the input items pass through
		// unchanged and the error stays recorded on the node's run.
		expect(handled.items).toEqual([
			{ json: { name: 'x', fail: true }, pairedItem: { item: 0 } },
			{ json: { name: 'y' }, pairedItem: { item: 1 } },
		]);
		expect(handled.error).toBeInstanceOf(NodeOperationError);
		expect(handled.runData['Harness Thrower'][0].executionStatus).toBe('error');
	});

	it('runs a versioned node type at its latest version', async () => {
		const version = (v: number): INodeType => ({
			description: description({ version: v, credentials: [], properties: [] }),
			async execute(this: IExecuteFunctions) {
				return [[{ json: { v: this.getNode().typeVersion }, pairedItem: { item: 0 } }]];
			},
		});
		const versioned = new VersionedNodeType(
			{ 1: version(1), 2: version(2) },
			{ displayName: 'Versioned', name: 'harnessVersioned', group: ['transform'], description: '', defaultVersion: 2 },
		);
		expect((await runNode({ nodeType: versioned, parameters: {} })).items[0].json).toEqual({ v: 2 });
	});

	it('reports a missing credential the way n8n does', async () => {
		const result = await runNode({ nodeType: new HarnessHttp(), parameters: { id: 'x' } });
		expect(result.error).toBeInstanceOf(NodeOperationError);
		expect(result.error?.message).toBe('Node does not have any credentials set');
		// Credential data without its type: the harness says what to pass.
		const untyped = await runNode({ nodeType: new HarnessHttp(), credentials: creds(), parameters: { id: 'x' } });
		expect(untyped.error?.message).toBe('Credential type "harnessTestApi" was not given to the harness');
	});
});

// ---------------------------------------------------------------------------------------------
// Webhook lifecycle and deliveries
// ---------------------------------------------------------------------------------------------

describe('runHookMethod', () => {
	it('carries static data across checkExists -> create -> checkExists -> delete', async () => {
		const staticData: IDataObject = {};
		const common = {
			nodeType: new HarnessTrigger(),
			credentialTypes,
			credentials: creds(),
			parameters: { hookName: 'stacks' },
			staticData,
			webhookUrl: 'https://n8n.example.com/webhook/abc-123/harness',
			workflowName: 'My Flow',
		};
		expect(await runHookMethod({ ...common, method: 'checkExists' })).toBe(false);
		expect(await runHookMethod({ ...common, method: 'create' })).toBe(true);
		expect(staticData.hookId).toBe(`hook-${remoteHooks.size}`);
		const created = remoteHooks.get(staticData.hookId as string);
		// n8n-core computed that URL itself: the node's webhookId was set from it.
		expect(created).toEqual({
			url: 'https://n8n.example.com/webhook/abc-123/harness',
			webhookId: 'abc-123',
			name: 'stacks My Flow activate trigger',
		});
		expect(seen.find((s) => s.method === 'POST')?.headers['x-api-key']).toBe('secret-key');

		expect(await runHookMethod({ ...common, method: 'checkExists' })).toBe(true);
		const id = staticData.hookId as string;
		expect(await runHookMethod({ ...common, method: 'delete' })).toBe(true);
		expect(staticData.hookId).toBeUndefined();
		expect(remoteHooks.has(id)).toBe(false);
	});

	it('uses n8n’s own URLs when none is given: production vs test webhook', async () => {
		const base = {
			nodeType: new HarnessTrigger(),
			credentialTypes,
			credentials: creds(),
			parameters: {},
			method: 'create' as const,
		};
		const prod: IDataObject = {};
		await runHookMethod({ ...base, staticData: prod });
		expect(remoteHooks.get(prod.hookId as string)).toEqual({
			url: 'http://127.0.0.1:5678/webhook/6d0e5f43-2a61-4c1e-9d6b-4b1f8c9a7e21/harness',
			webhookId: '6d0e5f43-2a61-4c1e-9d6b-4b1f8c9a7e21',
			name: 'n8n Harness Workflow activate trigger',
		});
		const test: IDataObject = {};
		await runHookMethod({ ...base, staticData: test, mode: 'manual' });
		expect(remoteHooks.get(test.hookId as string)).toEqual({
			url: 'http://127.0.0.1:5678/webhook-test/6d0e5f43-2a61-4c1e-9d6b-4b1f8c9a7e21/harness',
			webhookId: '6d0e5f43-2a61-4c1e-9d6b-4b1f8c9a7e21',
			name: 'n8n Harness Workflow manual manual',
		});
		// n8n cannot compute a URL that is not <base>/<webhookId>/<path>: the harness refuses it.
		await expect(runHookMethod({ ...base, staticData: {}, webhookUrl: 'https://x.test/somewhere' })).rejects.toThrow(
			'https://x.test/somewhere is not <base>/<webhookId>/harness',
		);
	});
});

describe('runWebhook', () => {
	it('answers through getResponseObject() when the node rejects a delivery', async () => {
		const result = await runWebhook({
			nodeType: new HarnessTrigger(),
			credentialTypes,
			credentials: creds(),
			parameters: {},
			headers: { 'X-Harness-Secret': 'wrong' },
			body: { event: 'block' },
		});
		expect(result.response).toEqual({ noWebhookResponse: true });
		expect(result.status).toBe(401);
		expect(result.sentBody).toEqual({ error: 'bad secret' });
		expect(result.response.workflowData).toBeUndefined();
	});

	it('starts the workflow with the delivery (workflowData), reading headers, body and static data', async () => {
		const result = await runWebhook({
			nodeType: new HarnessTrigger(),
			credentialTypes,
			credentials: creds(),
			parameters: {},
			headers: { 'X-Harness-Secret': 'default-secret' },
			body: { event: 'block', height: 7 },
			staticData: { hookId: 'hook-77' },
		});
		expect(result.status).toBeUndefined();
		expect(result.response.workflowData).toEqual([
			[
				{
					json: {
						event: 'block',
						height: 7,
						raw: '{"event":"block","height":7}',
						hookId: 'hook-77',
						url: 'http://127.0.0.1:5678/webhook/6d0e5f43-2a61-4c1e-9d6b-4b1f8c9a7e21/harness',
					},
				},
			],
		]);
	});

	it('hands the node the raw bytes given, beside the parsed body', async () => {
		const result = await runWebhook({
			nodeType: new HarnessTrigger(),
			credentialTypes,
			credentials: creds(),
			parameters: {},
			headers: { 'x-harness-secret': 'default-secret' },
			body: { event: 'block' },
			rawBody: '{ "event": "block" }',
		});
		expect(result.response.workflowData?.[0][0].json).toMatchObject({ event: 'block', raw: '{ "event": "block" }' });
	});
});

describe('runListSearch', () => {
	it('calls a listSearch method with filter and pagination token', async () => {
		const first = await runListSearch({
			nodeType: new HarnessTrigger(),
			credentialTypes,
			credentials: creds(),
			parameters: { hookName: '> ' },
			method: 'searchHooks',
			filter: 'alp',
		});
		expect(first).toEqual({
			results: [
				{ name: '> Alpha', value: 'h1' },
				{ name: '> Alphabet', value: 'h3' },
			],
			paginationToken: 'page-2',
		});
		expect(seen[0].headers['x-api-key']).toBe('secret-key');
		const second = await runListSearch({
			nodeType: new HarnessTrigger(),
			credentialTypes,
			credentials: creds(),
			method: 'searchHooks',
			paginationToken: 'page-2',
		});
		expect(second.paginationToken).toBeUndefined();
		expect(second.results).toHaveLength(3);
	});
});

describe('testCredential', () => {
	it('succeeds when the test request is accepted', async () => {
		const result = await testCredential({
			credentialType: new HarnessTestApi(),
			data: { apiKey: 'good-key', baseUrl: `${baseUrl}/` },
		});
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(seen).toHaveLength(1);
		expect(seen[0].url).toBe('/me/?limit=1');
		expect(seen[0].headers['x-api-key']).toBe('good-key');
	});

	it('fails with the HTTP status text when the request is refused', async () => {
		const result = await testCredential({
			credentialType: new HarnessTestApi(),
			data: { apiKey: 'bad-key', baseUrl },
		});
		expect(result.status).toBe('Error');
		expect(result.message).toBe('Unauthorized');
	});

	it('fails with the error code when nothing answers', async () => {
		const result = await testCredential({
			credentialType: new HarnessTestApi(),
			data: { apiKey: 'good-key', baseUrl: 'http://127.0.0.1:1' },
		});
		expect(result).toEqual({ status: 'Error', message: 'ECONNREFUSED' });
	});
});
