/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * n8n's public API (`/api/v1`, with an API key) and internal REST API (`/rest`, as the owner with
 * a session cookie), over fetch. undici's own fetch is used because its `dispatcher` carries the
 * trust for n8n's self-signed certificate to this request only (no global TLS setting).
 */
import { randomBytes } from 'crypto';
import { setTimeout as sleep } from 'timers/promises';
import { type Dispatcher, fetch } from 'undici';

import { n8nMajor } from './hosts/versions';

export interface HttpResponse {
	status: number;
	headers: Headers;
	text: string;
	/** The body parsed, when it is JSON. */
	json?: unknown;
}

export interface HttpOptions {
	method?: string;
	headers?: Record<string, string>;
	/** An object is sent as JSON; a string or Buffer as is. */
	body?: unknown;
	timeoutMs?: number;
}

/** One request; JSON bodies both ways. Default method: POST with a body, else GET. */
export async function httpRequest(url: string, options: HttpOptions = {}, dispatcher?: Dispatcher): Promise<HttpResponse> {
	const raw = options.body === undefined || typeof options.body === 'string' || Buffer.isBuffer(options.body);
	const res = await fetch(url, {
		method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
		headers: { ...(raw ? {} : { 'content-type': 'application/json' }), ...options.headers },
		body: raw ? (options.body as string | Buffer | undefined) : JSON.stringify(options.body),
		signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
		dispatcher,
	});
	const text = await res.text();
	let json: unknown;
	if (text && /json/i.test(res.headers.get('content-type') ?? '')) {
		try {
			json = JSON.parse(text);
		} catch {
			/* not JSON after all */
		}
	}
	return { status: res.status, headers: res.headers as unknown as Headers, text, json };
}

/** A request to one n8n: a path (`/rest/login`) or a full URL. */
export type Requester = (pathOrUrl: string, options?: HttpOptions) => Promise<HttpResponse>;

export class N8nHttpError extends Error {
	constructor(
		readonly method: string,
		readonly url: string,
		readonly status: number,
		readonly body: string,
	) {
		super(`${method} ${url} answered ${status}: ${body.slice(0, 1000)}`);
		this.name = 'N8nHttpError';
	}
}

export type ExecutionStatus = 'canceled' | 'crashed' | 'error' | 'new' | 'running' | 'success' | 'unknown' | 'waiting';

/** An execution as the public API returns it (`data` only with includeData). */
export interface Execution {
	id: string;
	finished: boolean;
	mode: string;
	status: ExecutionStatus;
	/** Null for a failed execution a trigger saved (saveFailedExecution: n8n 2.41.3's createErrorExecution sets only stoppedAt). */
	startedAt: string | null;
	stoppedAt: string | null;
	workflowId: string;
	data?: {
		resultData?: {
			runData?: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> }; error?: unknown }>>;
			error?: { message?: string; [key: string]: unknown };
			lastNodeExecuted?: string;
		};
		[key: string]: unknown;
	};
	[key: string]: unknown;
}

export interface WorkflowJson {
	id?: string;
	name: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

/** A workflow as the public API returns it. */
export interface Workflow extends WorkflowJson {
	id: string;
	active: boolean;
	versionId?: string;
	activeVersionId?: string | null;
}

/** What `GET /rest/workflows/{id}/publication-status` answers (n8n 2.41). */
export interface PublicationStatus {
	status: 'in_progress' | 'not_published' | 'published' | 'partial' | 'failed';
	liveVersionId: string | null;
	pendingVersionId: string | null;
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

/** A trigger failed to activate (the publication ended `failed` or `partial`). */
export class N8nPublicationError extends Error {
	constructor(
		readonly workflowId: string,
		readonly publication: PublicationStatus,
	) {
		const failures = publication.triggers
			.filter((trigger) => trigger.status === 'failed')
			.map((trigger) => `node ${trigger.nodeId}: ${trigger.errorMessage ?? '(no message)'}`);
		super(`publishing workflow ${workflowId} ended "${publication.status}": ${failures.join('; ')}`);
		this.name = 'N8nPublicationError';
	}
}

/** The fields the public API accepts on create and update; `settings` defaults to {executionOrder:'v1'}. */
function sanitizeWorkflow(workflow: WorkflowJson): Record<string, unknown> {
	const fields = ['name', 'description', 'nodes', 'connections', 'settings', 'staticData', 'pinData', 'nodeGroups', 'parentFolderId'];
	const out = Object.fromEntries(fields.filter((key) => workflow[key] !== undefined).map((key) => [key, workflow[key]]));
	return { ...out, settings: workflow.settings ?? { executionOrder: 'v1' } };
}

const isFinished = (execution: Execution) =>
	!['new', 'running', 'waiting'].includes(execution.status) && execution.stoppedAt !== null;
const id = encodeURIComponent;

export class N8nApi {
	/** The public-API key (set once the owner has one). */
	apiKey = '';
	private cookie: string | undefined;
	/** n8n binds the session cookie to this browser id. */
	private readonly browserId = `e2e-${randomBytes(8).toString('hex')}`;

	constructor(
		private readonly request: Requester,
		private readonly owner: { email: string; password: string },
		/** n8n's version: 1.x activates within the activate call, 2.x publishes afterwards (see activate()). Default: a 2.x. */
		readonly n8nVersion: string = '2',
	) {}

	/** n8n 2.x publishes workflows through an outbox; 1.x activates them within the API call. */
	private get publishes(): boolean {
		return n8nMajor(this.n8nVersion) >= 2;
	}

	/** Any public-API call: `public('GET', '/workflows?limit=1')` → parsed JSON. Throws N8nHttpError on status >= 400. */
	async public(method: string, apiPath: string, body?: unknown): Promise<unknown> {
		const url = `/api/v1${apiPath.startsWith('/') ? '' : '/'}${apiPath}`;
		const headers = { 'X-N8N-API-KEY': this.apiKey, accept: 'application/json' };
		const res = expectOk(method, url, await this.request(url, { method, headers, body }));
		return res.json ?? (res.text || undefined);
	}

	/** One internal-REST call with the session's cookie and browser id, as is (no login, no status check). */
	async restCall(method: string, restPath: string, body?: unknown): Promise<HttpResponse> {
		const headers: Record<string, string> = { 'browser-id': this.browserId, ...(this.cookie ? { cookie: this.cookie } : {}) };
		const res = await this.request(restUrl(restPath), { method, headers, body });
		const auth = res.headers.getSetCookie().map((cookie) => cookie.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
		if (auth) this.cookie = auth;
		return res;
	}

	async login(): Promise<void> {
		const { email, password } = this.owner;
		expectOk('POST', '/rest/login', await this.restCall('POST', '/login', { emailOrLdapLoginId: email, password }));
		if (!this.cookie) throw new Error('POST /rest/login set no n8n-auth cookie');
	}

	/**
	 * The internal REST API as the owner (logs in when needed; `restPath` with or without `/rest`).
	 * Returns the parsed JSON (n8n wraps most answers in `{ data }`); throws N8nHttpError on status >= 400.
	 */
	async rest(method: string, restPath: string, body?: unknown): Promise<unknown> {
		if (!this.cookie) await this.login();
		let res = await this.restCall(method, restPath, body);
		if (res.status === 401) {
			await this.login();
			res = await this.restCall(method, restPath, body);
		}
		expectOk(method, restUrl(restPath), res);
		return res.json ?? (res.text || undefined);
	}

	/** Every item of a paged public-API list (follows nextCursor). */
	async list<T>(apiPath: string): Promise<T[]> {
		const out: T[] = [];
		let cursor: string | undefined;
		do {
			const query = `${apiPath.includes('?') ? '&' : '?'}limit=250${cursor ? `&cursor=${id(cursor)}` : ''}`;
			const page = (await this.public('GET', apiPath + query)) as { data: T[]; nextCursor?: string | null };
			out.push(...page.data);
			cursor = page.nextCursor ?? undefined;
		} while (cursor);
		return out;
	}

	/**
	 * n8n 1.1xx adds "Allowed HTTP Request Domains" to every credential, and its public API then
	 * refuses one without `allowedDomains` unless `allowedHttpRequestDomains` is given (the editor
	 * fills in its default, "all"); that default is sent when n8n asks for it.
	 */
	async createCredential(credential: { name: string; type: string; data: Record<string, unknown> }) {
		type Created = { id: string; name: string; type: string; [key: string]: unknown };
		try {
			return (await this.public('POST', '/credentials', credential)) as Created;
		} catch (error) {
			if (!(error instanceof N8nHttpError && error.status === 400 && error.body.includes('allowedDomains'))) throw error;
			return (await this.public('POST', '/credentials', { ...credential, data: { allowedHttpRequestDomains: 'all', ...credential.data } })) as Created;
		}
	}

	/**
	 * The editor's "Listen for test event" / "Execute workflow" from `triggerName`
	 * (`POST /rest/workflows/{id}/run`): n8n 2.x reads the saved workflow, 1.x wants it in the body.
	 */
	async runManually(workflowId: string, triggerName: string): Promise<unknown> {
		const triggerToStartFrom = { name: triggerName };
		if (this.publishes) return this.rest('POST', `/workflows/${id(workflowId)}/run`, { triggerToStartFrom });
		const workflowData = (await this.rest('GET', `/workflows/${id(workflowId)}`)) as { data: Record<string, unknown> };
		return this.rest('POST', `/workflows/${id(workflowId)}/run`, { workflowData: workflowData.data, triggerToStartFrom });
	}

	/** A GET of any path of the editor's server (e.g. `/types/nodes.json`) with the owner's session, parsed. */
	async page(pagePath: string): Promise<unknown> {
		if (!this.cookie) await this.login();
		const headers: Record<string, string> = { 'browser-id': this.browserId, cookie: this.cookie! };
		const res = expectOk('GET', pagePath, await this.request(pagePath, { method: 'GET', headers }));
		return res.json ?? res.text;
	}

	/** Read-only fields (id, active, tags, ...) are dropped. */
	async createWorkflow(workflow: WorkflowJson): Promise<Workflow> {
		return (await this.public('POST', '/workflows', sanitizeWorkflow(workflow))) as Workflow;
	}

	async getWorkflow(workflowId: string): Promise<Workflow> {
		return (await this.public('GET', `/workflows/${id(workflowId)}`)) as Workflow;
	}

	/** On a published workflow this republishes, and waits for that. */
	async updateWorkflow(workflowId: string, workflow: WorkflowJson): Promise<Workflow> {
		const updated = (await this.public('PUT', `/workflows/${id(workflowId)}`, sanitizeWorkflow(workflow))) as Workflow;
		return updated.active ? this.settled(workflowId, true) : updated;
	}

	/**
	 * Activates (n8n 2.x: publishes). n8n 2.41 publishes through an outbox after it answers: unless
	 * `wait: false`, this waits until the triggers' `checkExists`/`create` ran and throws
	 * N8nPublicationError when one failed. n8n 1.x runs them within the call and answers 400 when
	 * one throws (an N8nHttpError). Returns the workflow as it then is.
	 */
	async activate(workflowId: string, options: { wait?: boolean; timeoutMs?: number } = {}): Promise<Workflow> {
		const answer = (await this.public('POST', `/workflows/${id(workflowId)}/activate`, {})) as Workflow;
		return options.wait === false ? answer : this.settled(workflowId, true, options.timeoutMs);
	}

	/** Unpublishes; waits until the trigger's `delete` ran (unless `wait: false`). */
	async deactivate(workflowId: string, options: { wait?: boolean; timeoutMs?: number } = {}): Promise<Workflow> {
		const answer = (await this.public('POST', `/workflows/${id(workflowId)}/deactivate`, {})) as Workflow;
		return options.wait === false ? answer : this.settled(workflowId, false, options.timeoutMs);
	}

	private async settled(workflowId: string, publishing: boolean, timeoutMs?: number): Promise<Workflow> {
		if (!this.publishes) return this.getWorkflow(workflowId);
		const publication = await this.waitForPublication(workflowId, { timeoutMs });
		if (publishing && (publication.status === 'failed' || publication.status === 'partial')) {
			throw new N8nPublicationError(workflowId, publication);
		}
		return this.getWorkflow(workflowId);
	}

	/** Polls n8n's publication status (`GET /rest/workflows/{id}/publication-status`) until it is no longer `in_progress` (default timeout 30 s). */
	async waitForPublication(workflowId: string, options: { timeoutMs?: number } = {}): Promise<PublicationStatus> {
		const timeoutMs = options.timeoutMs ?? 30_000;
		for (const deadline = Date.now() + timeoutMs; ; await sleep(100)) {
			const answer = (await this.rest('GET', `/workflows/${id(workflowId)}/publication-status`)) as { data: PublicationStatus };
			const publication = answer.data;
			if (publication.status !== 'in_progress') return publication;
			if (Date.now() > deadline) throw new Error(`workflow ${workflowId}: publication still in progress after ${timeoutMs} ms`);
		}
	}

	/** All executions matching the filter, newest first as n8n lists them. */
	async executions(filter: { workflowId?: string; includeData?: boolean; status?: ExecutionStatus } = {}): Promise<Execution[]> {
		const query = new URLSearchParams();
		if (filter.workflowId) query.set('workflowId', filter.workflowId);
		if (filter.includeData) query.set('includeData', 'true');
		if (filter.status) query.set('status', filter.status);
		const executions = await this.list<Execution>(`/executions${query.size ? `?${query.toString()}` : ''}`);
		// n8n 1.85's public API has no `status` yet, only `finished` (true once it succeeded) and `stoppedAt`.
		for (const execution of executions) execution.status ??= execution.finished ? 'success' : execution.stoppedAt ? 'error' : 'running';
		return executions;
	}

	/** Polls until the workflow has `count` finished executions; returns them oldest first, with data. Throws on timeout (default 30 s). */
	async waitForExecutions(
		workflowId: string,
		count: number,
		options: { timeoutMs?: number } = {},
	): Promise<Execution[]> {
		const timeoutMs = options.timeoutMs ?? 30_000;
		for (const deadline = Date.now() + timeoutMs; ; await sleep(500)) {
			const seen = await this.executions({ workflowId });
			if (seen.filter(isFinished).length >= count) {
				const withData = await this.executions({ workflowId, includeData: true });
				return withData.filter(isFinished).sort((a, b) => Number(a.id) - Number(b.id));
			}
			if (Date.now() > deadline) {
				const states = JSON.stringify(seen.map((execution) => ({ id: execution.id, status: execution.status })));
				throw new Error(`waited ${timeoutMs} ms for ${count} finished executions of workflow ${workflowId}; saw ${seen.length}: ${states}`);
			}
		}
	}
}

function restUrl(restPath: string): string {
	return restPath.startsWith('/rest/') ? restPath : `/rest${restPath.startsWith('/') ? '' : '/'}${restPath}`;
}

export function expectOk(method: string, url: string, res: HttpResponse): HttpResponse {
	if (res.status >= 400) throw new N8nHttpError(method, url, res.status, res.text);
	return res;
}
