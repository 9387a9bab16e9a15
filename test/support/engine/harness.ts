/**
 * Runs this package's nodes through n8n's real execution engine (n8n-core), in-process.
 *
 * - runNode:        a Workflow (start node -> node under test) run by `WorkflowExecute.run()`
 * - runHookMethod:  webhookMethods.<name>.checkExists/create/delete called on a real HookContext
 * - runWebhook:     node.webhook() called on a real WebhookContext with an express-like req/res
 * - runListSearch / runLoadOptions: methods.listSearch / methods.loadOptions on a LoadOptionsContext
 * - testCredential: a credential type's `test.request` sent the way n8n's credential dialog does
 *                   (n8n-core's RoutingNode on an ExecuteContext, as the CLI's CredentialsTester)
 *
 * Expressions are resolved by n8n-workflow, HTTP goes through n8n-core's real request helpers,
 * credentials through HarnessCredentialsHelper (the CLI's logic over an in-memory map).
 */
import {
	ExecuteContext,
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	HookContext,
	LoadOptionsContext,
	RoutingNode,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	Node,
	NodeApiError,
	NodeHelpers,
	NodeOperationError,
	UnexpectedError,
	Workflow,
	createEmptyRunExecutionData,
	deepCopy,
} from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	INode,
	INodeCredentials,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodePropertyOptions,
	INodeType,
	INodeTypes,
	IRun,
	IRunData,
	IVersionedNodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WebhookType,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { HarnessCredentialsHelper } from './credentials-helper';
import type { CredentialsMap } from './credentials-helper';
import { prepareEngineEnvironment } from './environment';

prepareEngineEnvironment();

export { HarnessCredentialsHelper };
export type { CredentialsMap };

/** Node types are registered as n8n registers a community package's nodes: `<package>.<name>`. */
export const PACKAGE_NAME = 'n8n-nodes-stacks-hooks';

/** The instance the harness pretends to be (n8n's defaults for N8N_HOST=127.0.0.1, port 5678). */
export const INSTANCE_BASE = 'http://127.0.0.1:5678';

export const HARNESS_URLS = {
	instanceBaseUrl: `${INSTANCE_BASE}/`,
	restApiUrl: `${INSTANCE_BASE}/rest`,
	webhookBaseUrl: `${INSTANCE_BASE}/webhook`,
	webhookTestBaseUrl: `${INSTANCE_BASE}/webhook-test`,
	webhookWaitingBaseUrl: `${INSTANCE_BASE}/webhook-waiting`,
	formBaseUrl: `${INSTANCE_BASE}/form`,
	formTestBaseUrl: `${INSTANCE_BASE}/form-test`,
	formWaitingBaseUrl: `${INSTANCE_BASE}/form-waiting`,
	mcpBaseUrl: `${INSTANCE_BASE}/mcp`,
	mcpTestBaseUrl: `${INSTANCE_BASE}/mcp-test`,
} as const;

/** The webhookId n8n would have given the node (fixed, for predictable URLs). */
export const DEFAULT_WEBHOOK_ID = '6d0e5f43-2a61-4c1e-9d6b-4b1f8c9a7e21';
export const DEFAULT_WORKFLOW_ID = 'harnessWorkflow1';
export const DEFAULT_WORKFLOW_NAME = 'Harness Workflow';

const START_NODE_NAME = 'Start';
const START_TYPE = `${PACKAGE_NAME}-harness.start`;

type AnyNodeType = INodeType | IVersionedNodeType;

interface CommonOptions {
	nodeType: AnyNodeType;
	credentialTypes?: ICredentialType[];
	credentials?: CredentialsMap;
	typeVersion?: number;
}

// ---------------------------------------------------------------------------------------------
// Node types, nodes, additional data
// ---------------------------------------------------------------------------------------------

function isVersioned(nodeType: AnyNodeType): nodeType is IVersionedNodeType {
	return 'nodeVersions' in nodeType;
}

function latestVersion(nodeType: AnyNodeType): number {
	if (isVersioned(nodeType)) return nodeType.currentVersion;
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

function typeNameOf(nodeType: AnyNodeType): string {
	const { name } = nodeType.description;
	return name.includes('.') ? name : `${PACKAGE_NAME}.${name}`;
}

class HarnessNodeTypes implements INodeTypes {
	private readonly types = new Map<string, AnyNodeType>();

	register(name: string, type: AnyNodeType): void {
		this.types.set(name, type);
	}

	getByName(nodeType: string): AnyNodeType {
		const type = this.types.get(nodeType);
		if (type === undefined) throw new UnexpectedError(`Unrecognized node type: ${nodeType}`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

interface Prepared {
	nodeTypes: HarnessNodeTypes;
	credentialsHelper: HarnessCredentialsHelper;
	typeName: string;
	typeVersion: number;
	/** The concrete (version-resolved) node type. */
	type: INodeType;
	nodeName: string;
	credentials: INodeCredentials | undefined;
}

function prepare(opts: CommonOptions): Prepared {
	const nodeTypes = new HarnessNodeTypes();
	const typeName = typeNameOf(opts.nodeType);
	nodeTypes.register(typeName, opts.nodeType);
	const typeVersion = opts.typeVersion ?? latestVersion(opts.nodeType);
	const type = NodeHelpers.getVersionedNodeType(opts.nodeType, typeVersion);
	const nodeName = type.description.defaults.name ?? type.description.displayName;
	const credentialsMap = opts.credentials ?? {};
	const credentialsHelper = new HarnessCredentialsHelper(opts.credentialTypes, credentialsMap);
	const names = Object.keys(credentialsMap);
	const credentials =
		names.length === 0
			? undefined
			: Object.fromEntries(
					names.map((name) => [name, { id: `harness-${name}`, name: `${name} (harness)` }]),
				);
	return { nodeTypes, credentialsHelper, typeName, typeVersion, type, nodeName, credentials };
}

function makeNode(p: Prepared, parameters: INodeParameters, extra: Partial<INode> = {}): INode {
	const node: INode = {
		id: 'a9b3c1d2-0000-4000-8000-000000000001',
		name: p.nodeName,
		type: p.typeName,
		typeVersion: p.typeVersion,
		position: [260, 0],
		parameters: deepCopy(parameters),
		...extra,
	};
	if (p.credentials) node.credentials = p.credentials;
	return node;
}

function makeAdditionalData(
	credentialsHelper: HarnessCredentialsHelper,
	extra: Partial<IWorkflowExecuteAdditionalData> = {},
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper,
		executeWorkflow: async () => {
			throw new UnexpectedError('executeWorkflow is not supported by the engine harness');
		},
		startRunnerTask: async () => {
			throw new UnexpectedError('Task runners are not supported by the engine harness');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		...HARNESS_URLS,
		variables: {},
		userId: 'harness-user',
		externalSecretsProxy: new ExternalSecretsProxy(),
		...extra,
	};
}

function workflowBase(id: string, name: string, nodes: INode[], active: boolean): IWorkflowBase {
	const now = new Date();
	return {
		id,
		name,
		active,
		isArchived: false,
		createdAt: now,
		updatedAt: now,
		nodes,
		connections: {},
		settings: { executionOrder: 'v1' },
	} as IWorkflowBase;
}

function toItems(items: IDataObject[] | INodeExecutionData[] | undefined): INodeExecutionData[] {
	if (items === undefined) return [{ json: {} }];
	return (items as Array<IDataObject | INodeExecutionData>).map((item) => {
		const json = (item as INodeExecutionData).json;
		if (typeof json === 'object' && json !== null && !Array.isArray(json)) {
			return deepCopy(item as INodeExecutionData);
		}
		return { json: deepCopy(item as IDataObject) };
	});
}

/** A start node that outputs the given items (stands in for a trigger / the previous node). */
function startNodeType(items: INodeExecutionData[]): INodeType {
	return {
		description: {
			displayName: 'Harness Start',
			name: START_TYPE,
			group: ['input'],
			version: 1,
			description: 'Outputs the items given to the harness',
			defaults: { name: START_NODE_NAME },
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		},
		async execute() {
			return [deepCopy(items)];
		},
	};
}

// ---------------------------------------------------------------------------------------------
// runNode
// ---------------------------------------------------------------------------------------------

/**
 * Registers, for the node under test, its node type behind a thin wrapper whose `execute` calls
 * the real one (same `this`/arguments) and remembers what it threw, since the run data only keeps
 * a plain copy of the error.
 */
function captureThrown(p: Prepared): { errors: unknown[] } {
	const sink = { errors: [] as unknown[] };
	type Execute = NonNullable<INodeType['execute']>;
	const original: Execute | undefined = p.type.execute;
	if (original === undefined) return sink;
	const wrapped = Object.create(p.type) as INodeType;
	wrapped.execute = async function (this: IExecuteFunctions, ...args: Parameters<Execute>) {
		try {
			return await original.apply(this, args);
		} catch (error) {
			sink.errors.push(error);
			throw error;
		}
	};
	p.type = wrapped;
	p.nodeTypes.register(p.typeName, wrapped);
	return sink;
}

export interface RunNodeOptions extends CommonOptions {
	parameters: INodeParameters;
	items?: IDataObject[] | INodeExecutionData[];
	/** Node setting "On Error: Continue" (node.onError = 'continueRegularOutput'). */
	continueOnFail?: boolean;
	/** Node setting "On Error" directly (wins over continueOnFail). */
	onError?: INode['onError'];
	/** Workflow static data (global and/or `node:<name>` keys), mutated in place. */
	staticData?: IDataObject;
	mode?: WorkflowExecuteMode;
}

export interface RunNodeResult {
	/** First output of the node under test. */
	items: INodeExecutionData[];
	/** Every output of the node under test. */
	outputs: INodeExecutionData[][];
	/**
	 * The error the node's run ended with: the instance n8n recorded (NodeApiError /
	 * NodeOperationError as thrown by the node or made by n8n from a raw HTTP error).
	 */
	error?: Error;
	/** The same error as n8n stores it in the run data (a plain copy). */
	reportedError?: IDataObject;
	runData: IRunData;
	/** The whole IRun WorkflowExecute resolved with. */
	run: IRun;
	credentialsHelper: HarnessCredentialsHelper;
}

export async function runNode(opts: RunNodeOptions): Promise<RunNodeResult> {
	const p = prepare(opts);
	const thrown = captureThrown(p);
	const inputItems = toItems(opts.items);
	p.nodeTypes.register(START_TYPE, startNodeType(inputItems));

	const start: INode = {
		id: 'a9b3c1d2-0000-4000-8000-000000000000',
		name: START_NODE_NAME,
		type: START_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const onError = opts.onError ?? (opts.continueOnFail ? 'continueRegularOutput' : undefined);
	const node = makeNode(p, opts.parameters, onError ? { onError } : {});
	if (node.name === START_NODE_NAME) node.name = `${START_NODE_NAME} (under test)`;
	const connections = {
		[START_NODE_NAME]: { main: [[{ node: node.name, type: 'main' as const, index: 0 }]] },
	};

	const workflow = new Workflow({
		id: DEFAULT_WORKFLOW_ID,
		name: DEFAULT_WORKFLOW_NAME,
		nodes: [start, node],
		connections,
		active: false,
		nodeTypes: p.nodeTypes,
		staticData: opts.staticData,
		settings: { executionOrder: 'v1' },
	});

	const mode = opts.mode ?? 'manual';
	const executionId = 'harness-execution-1';
	const hooks = new ExecutionLifecycleHooks(
		mode,
		executionId,
		workflowBase(DEFAULT_WORKFLOW_ID, DEFAULT_WORKFLOW_NAME, [start, node], false),
	);
	const additionalData = makeAdditionalData(p.credentialsHelper, {
		hooks,
		executionId,
		workflowId: DEFAULT_WORKFLOW_ID,
	});

	const run = await new WorkflowExecute(additionalData, mode).run({
		workflow,
		startNode: workflow.getNode(START_NODE_NAME) ?? undefined,
	});

	const runData = run.data.resultData.runData;
	const tasks = runData[node.name] ?? [];
	const last = tasks[tasks.length - 1];
	const outputs = (last?.data?.main ?? []).map((output) => output ?? []);
	const reported = (last?.error ?? run.data.resultData.error) as IDataObject | undefined;
	const error = reported ? pickError(reported, thrown.errors) : undefined;
	return {
		items: outputs[0] ?? [],
		outputs,
		...(error ? { error, reportedError: reported } : {}),
		runData,
		run,
		credentialsHelper: p.credentialsHelper,
	};
}

/**
 * n8n records a node's error in the run data as a plain copy (`{...error, message, stack}`).
 * Hand back the instance the copy was made from (what the node threw, or n8n's NodeApiError
 * wrapping of a raw HTTP error), else the copy itself with its class's prototype restored.
 */
function pickError(reported: IDataObject, thrownErrors: unknown[]): Error {
	const same = thrownErrors.find(
		(e): e is Error => e instanceof Error && e.message === reported.message,
	);
	if (same) return same;
	const prototypes: Record<string, object> = {
		NodeApiError: NodeApiError.prototype,
		NodeOperationError: NodeOperationError.prototype,
	};
	const proto = prototypes[String(reported.name)] ?? Error.prototype;
	return Object.assign(Object.create(proto) as Error, reported);
}

// ---------------------------------------------------------------------------------------------
// Webhook set-up shared by runHookMethod / runWebhook
// ---------------------------------------------------------------------------------------------

interface WebhookSetup {
	p: Prepared;
	workflow: Workflow;
	node: INode;
	description: IWebhookDescription;
	webhookData: IWebhookData;
	additionalData: IWorkflowExecuteAdditionalData;
}

function webhookDescriptionOf(type: INodeType, name: string): IWebhookDescription {
	const description = type.description.webhooks?.find((w) => w.name === name);
	if (description === undefined) {
		throw new UnexpectedError(`Node type "${type.description.name}" has no webhook named "${name}"`);
	}
	return description;
}

function setUpWebhook(
	opts: CommonOptions & {
		parameters: INodeParameters;
		staticData?: IDataObject;
		webhookName: string;
		isTest: boolean;
		active: boolean;
		workflowId?: string;
		workflowName?: string;
		webhookId?: string;
		extraAdditionalData?: Partial<IWorkflowExecuteAdditionalData>;
		urls?: Partial<typeof HARNESS_URLS>;
	},
): WebhookSetup {
	const p = prepare(opts);
	const description = webhookDescriptionOf(p.type, opts.webhookName);
	const node = makeNode(p, opts.parameters, { webhookId: opts.webhookId ?? DEFAULT_WEBHOOK_ID });
	const workflowId = opts.workflowId ?? DEFAULT_WORKFLOW_ID;
	const workflowName = opts.workflowName ?? DEFAULT_WORKFLOW_NAME;
	// The node's static data is the workflow's `node:<name>` entry: Workflow wraps it in an
	// ObservableObject proxy over the very same object, so the node's writes land in the caller's.
	const staticData: IDataObject = opts.staticData ? { [`node:${node.name}`]: opts.staticData } : {};
	const workflow = new Workflow({
		id: workflowId,
		name: workflowName,
		nodes: [node],
		connections: {},
		active: opts.active,
		nodeTypes: p.nodeTypes,
		staticData,
		settings: { executionOrder: 'v1' },
	});
	const additionalData = makeAdditionalData(p.credentialsHelper, {
		workflowId,
		...opts.urls,
		...opts.extraAdditionalData,
	});
	const path = workflow.expression.getSimpleParameterValue(node, description.path, 'internal', {});
	const webhookData: IWebhookData = {
		httpMethod: String(
			workflow.expression.getSimpleParameterValue(
				node,
				description.httpMethod,
				'internal',
				{},
				undefined,
				'GET',
			),
		) as IWebhookData['httpMethod'],
		node: node.name,
		path: NodeHelpers.getNodeWebhookPath(workflowId, node, String(path ?? '').replace(/^\/|\/$/g, '')),
		webhookDescription: description,
		workflowId,
		workflowExecuteAdditionalData: additionalData,
		webhookId: node.webhookId,
		isTest: opts.isTest,
		staticData: workflow.staticData,
	};
	return { p, workflow, node, description, webhookData, additionalData };
}

// ---------------------------------------------------------------------------------------------
// runHookMethod
// ---------------------------------------------------------------------------------------------

export interface RunHookMethodOptions extends CommonOptions {
	parameters: INodeParameters;
	method: 'checkExists' | 'create' | 'delete';
	/**
	 * What `getNodeWebhookUrl('default')` must return. The harness sets the node's webhookId and
	 * the instance's base URL so that n8n-core computes exactly this URL (`<base>/<webhookId>/<path>`);
	 * when the URL cannot be written that way, getNodeWebhookUrl of that one context is made to
	 * return it. Omitted: n8n's own URL, `http://127.0.0.1:5678/webhook[-test]/<webhookId>/<path>`.
	 */
	webhookUrl?: string;
	/** The node's static data: mutated in place, so it carries across calls (activate -> deactivate). */
	staticData: IDataObject;
	/** 'trigger' = workflow activation (production URL); 'manual' = editor "listen for test event". */
	mode?: 'trigger' | 'manual';
	/** Defaults to 'activate' for mode 'trigger' and 'manual' for mode 'manual'. */
	activation?: WorkflowActivateMode;
	workflowName?: string;
	workflowId?: string;
	webhookId?: string;
	/** Which webhook description's methods to call (default 'default'). */
	webhookName?: WebhookType;
}

export async function runHookMethod(opts: RunHookMethodOptions): Promise<boolean | undefined> {
	const mode = opts.mode ?? 'trigger';
	const isTest = mode === 'manual';
	const webhookName = opts.webhookName ?? 'default';
	const activation: WorkflowActivateMode = opts.activation ?? (isTest ? 'manual' : 'activate');

	const build = (webhookId: string | undefined, urls?: Partial<typeof HARNESS_URLS>) => {
		const setup = setUpWebhook({
			...opts,
			webhookName,
			isTest,
			active: !isTest,
			webhookId,
			urls,
		});
		const context = new HookContext(
			setup.workflow,
			setup.node,
			setup.additionalData,
			mode,
			activation,
			setup.webhookData,
		);
		return { setup, context };
	};

	let { setup, context } = build(opts.webhookId);
	const wanted = opts.webhookUrl;
	if (wanted !== undefined && context.getNodeWebhookUrl(webhookName) !== wanted) {
		// Re-derive base URL and webhookId so that n8n-core's own computation yields `wanted`.
		const baseKey = isTest ? 'webhookTestBaseUrl' : 'webhookBaseUrl';
		const computed = context.getNodeWebhookUrl(webhookName) ?? '';
		const base = setup.additionalData[baseKey];
		const idSegment = `/${setup.node.webhookId}/`;
		const afterBase = computed.startsWith(`${base}/`) ? computed.slice(base.length) : '';
		if (afterBase.startsWith(idSegment)) {
			const pathPart = afterBase.slice(idSegment.length - 1); // "/<path>"
			if (wanted.endsWith(pathPart)) {
				const prefix = wanted.slice(0, wanted.length - pathPart.length);
				const cut = prefix.lastIndexOf('/');
				if (cut > 0) {
					({ setup, context } = build(prefix.slice(cut + 1), {
						[baseKey]: prefix.slice(0, cut),
					}));
				}
			}
		}
		if (context.getNodeWebhookUrl(webhookName) !== wanted) {
			const real = context.getNodeWebhookUrl.bind(context);
			context.getNodeWebhookUrl = (name: WebhookType) => (name === webhookName ? wanted : real(name));
		}
	}

	const fn = setup.p.type.webhookMethods?.[webhookName]?.[opts.method];
	if (fn === undefined) {
		throw new UnexpectedError(
			`Node type "${setup.p.typeName}" has no webhookMethods.${webhookName}.${opts.method}`,
		);
	}
	return (await fn.call(context)) as boolean | undefined;
}

// ---------------------------------------------------------------------------------------------
// runWebhook
// ---------------------------------------------------------------------------------------------

export interface RunWebhookOptions extends CommonOptions {
	parameters: INodeParameters;
	headers: Record<string, string>;
	body: unknown;
	/** The raw bytes of the body (default: the body as sent: a string as is, else its JSON). */
	rawBody?: Buffer | string;
	query?: Record<string, string>;
	method?: string;
	staticData?: IDataObject;
	webhookName?: WebhookType;
	/** 'webhook' = production delivery; 'manual' = test webhook while the editor listens. */
	mode?: 'webhook' | 'manual';
	workflowId?: string;
	workflowName?: string;
	webhookId?: string;
}

export interface RunWebhookResult {
	response: IWebhookResponseData;
	/** Set only when the node answered through getResponseObject(). */
	status?: number;
	sentBody?: unknown;
	sentHeaders?: Record<string, string>;
	/** Whether the node ended the response itself (n8n then sends nothing more). */
	ended: boolean;
}

interface CapturedResponse {
	touched: boolean;
	ended: boolean;
	status?: number;
	body?: unknown;
	headers: Record<string, string>;
}

function makeRequest(opts: RunWebhookOptions, url: string) {
	const headers: Record<string, string> = {};
	for (const [k, v] of Object.entries(opts.headers)) headers[k.toLowerCase()] = v;
	const raw =
		opts.rawBody ??
		(typeof opts.body === 'string' ? opts.body : opts.body === undefined ? '' : JSON.stringify(opts.body));
	const parsedUrl = new URL(url);
	for (const [k, v] of Object.entries(opts.query ?? {})) parsedUrl.searchParams.set(k, v);
	return {
		method: (opts.method ?? 'POST').toUpperCase(),
		headers,
		body: opts.body,
		rawBody: Buffer.isBuffer(raw) ? raw : Buffer.from(raw),
		query: { ...(opts.query ?? {}) },
		params: {},
		url: parsedUrl.pathname + parsedUrl.search,
		originalUrl: parsedUrl.pathname + parsedUrl.search,
		path: parsedUrl.pathname,
		protocol: parsedUrl.protocol.replace(':', ''),
		hostname: parsedUrl.hostname,
		ip: '127.0.0.1',
		get(name: string) {
			return headers[name.toLowerCase()];
		},
		header(name: string) {
			return headers[name.toLowerCase()];
		},
	};
}

function makeResponse(captured: CapturedResponse) {
	const res = {
		get statusCode() {
			return captured.status ?? 200;
		},
		set statusCode(code: number) {
			captured.touched = true;
			captured.status = code;
		},
		get headersSent() {
			return captured.ended;
		},
		get writableEnded() {
			return captured.ended;
		},
		status(code: number) {
			captured.touched = true;
			captured.status = code;
			return res;
		},
		sendStatus(code: number) {
			captured.touched = true;
			captured.status = code;
			captured.ended = true;
			return res;
		},
		setHeader(name: string, value: string | number | readonly string[]) {
			captured.headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
			return res;
		},
		getHeader(name: string) {
			return captured.headers[name.toLowerCase()];
		},
		removeHeader(name: string) {
			delete captured.headers[name.toLowerCase()];
		},
		set(field: string | Record<string, string>, value?: string) {
			if (typeof field === 'string') res.setHeader(field, value ?? '');
			else for (const [k, v] of Object.entries(field)) res.setHeader(k, v);
			return res;
		},
		header(field: string | Record<string, string>, value?: string) {
			return res.set(field, value);
		},
		type(contentType: string) {
			return res.setHeader('content-type', contentType);
		},
		writeHead(code: number, headers?: Record<string, string>) {
			res.status(code);
			if (headers) res.set(headers);
			return res;
		},
		write(chunk: unknown) {
			captured.touched = true;
			captured.body =
				captured.body === undefined ? chunk : `${String(captured.body)}${String(chunk)}`;
			return true;
		},
		json(body: unknown) {
			captured.touched = true;
			captured.status ??= 200;
			if (captured.headers['content-type'] === undefined) {
				captured.headers['content-type'] = 'application/json; charset=utf-8';
			}
			captured.body = body;
			captured.ended = true;
			return res;
		},
		send(body?: unknown) {
			captured.touched = true;
			captured.status ??= 200;
			captured.body = body;
			captured.ended = true;
			return res;
		},
		end(body?: unknown) {
			captured.touched = true;
			captured.status ??= 200;
			if (body !== undefined) captured.body = body;
			captured.ended = true;
			return res;
		},
		on() {
			return res;
		},
		once() {
			return res;
		},
		flushHeaders() {},
	};
	return res;
}

export async function runWebhook(opts: RunWebhookOptions): Promise<RunWebhookResult> {
	const mode = opts.mode ?? 'webhook';
	const webhookName = opts.webhookName ?? 'default';
	const isTest = mode === 'manual';
	const captured: CapturedResponse = { touched: false, ended: false, headers: {} };
	const res = makeResponse(captured);

	// Built once without the request to learn the URL the delivery comes to.
	const probe = setUpWebhook({ ...opts, webhookName, isTest, active: !isTest });
	const base = isTest ? probe.additionalData.webhookTestBaseUrl : probe.additionalData.webhookBaseUrl;
	const req = makeRequest(opts, `${base}/${probe.webhookData.path}`);

	const setup = setUpWebhook({
		...opts,
		webhookName,
		isTest,
		active: !isTest,
		extraAdditionalData: {
			httpRequest: req as unknown as IWorkflowExecuteAdditionalData['httpRequest'],
			httpResponse: res as unknown as IWorkflowExecuteAdditionalData['httpResponse'],
			executionId: undefined,
		},
	});
	const context = new WebhookContext(
		setup.workflow,
		setup.node,
		setup.additionalData,
		mode,
		setup.webhookData,
		[],
		null,
	);
	const nodeType = setup.p.type;
	if (nodeType.webhook === undefined) {
		throw new UnexpectedError(`Node type "${setup.p.typeName}" has no webhook() method`);
	}
	// As the CLI's WebhookService: Node subclasses get the context as argument, others as `this`.
	const response: IWebhookResponseData =
		nodeType instanceof Node
			? await (nodeType as Node).webhook!(context)
			: await nodeType.webhook.call(context);

	return {
		response,
		...(captured.touched
			? { status: captured.status ?? 200, sentBody: captured.body, sentHeaders: captured.headers }
			: {}),
		ended: captured.ended,
	};
}

// ---------------------------------------------------------------------------------------------
// listSearch / loadOptions (as the CLI's DynamicNodeParametersService)
// ---------------------------------------------------------------------------------------------

export interface LoadOptionsOptions extends CommonOptions {
	parameters?: INodeParameters;
	method: string;
	/** Path of the parameter asking, e.g. 'parameters.hook' (default 'parameters'). */
	path?: string;
}

function loadOptionsContext(opts: LoadOptionsOptions): { context: LoadOptionsContext; p: Prepared } {
	const p = prepare(opts);
	const current = deepCopy(opts.parameters ?? {});
	const node = makeNode(p, current, { name: 'Temp-Node', id: 'uuid-1234' });
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: p.nodeTypes,
	});
	const additionalData = makeAdditionalData(p.credentialsHelper, { currentNodeParameters: current });
	const context = new LoadOptionsContext(
		workflow,
		workflow.nodes['Temp-Node'],
		additionalData,
		opts.path ?? 'parameters',
	);
	return { context, p };
}

export async function runListSearch(
	opts: LoadOptionsOptions & { filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	const { context, p } = loadOptionsContext(opts);
	const method = p.type.methods?.listSearch?.[opts.method];
	if (typeof method !== 'function') {
		throw new UnexpectedError(`Node type "${p.typeName}" has no methods.listSearch.${opts.method}`);
	}
	return await method.call(context, opts.filter, opts.paginationToken);
}

export async function runLoadOptions(opts: LoadOptionsOptions): Promise<INodePropertyOptions[]> {
	const { context, p } = loadOptionsContext(opts);
	const method = p.type.methods?.loadOptions?.[opts.method];
	if (typeof method !== 'function') {
		throw new UnexpectedError(`Node type "${p.typeName}" has no methods.loadOptions.${opts.method}`);
	}
	return await method.call(context);
}

// ---------------------------------------------------------------------------------------------
// testCredential (as the CLI's CredentialsTester for a credential type with `test.request`)
// ---------------------------------------------------------------------------------------------

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

interface ErrorWithCause {
	message?: string;
	cause?: { code?: string; response?: { status?: number; statusText?: string } };
}

export async function testCredential(opts: {
	credentialType: ICredentialType;
	data: ICredentialDataDecryptedObject;
}): Promise<CredentialTestResult> {
	const { credentialType } = opts;
	const testRequest = credentialType.test;
	if (testRequest === undefined) {
		return { status: 'Error', message: 'No testing function found for this credential.' };
	}
	const credentialsHelper = new HarnessCredentialsHelper([credentialType], {
		[credentialType.name]: opts.data,
	});
	const baseAdditionalData = makeAdditionalData(credentialsHelper);

	let credentialsDecrypted: ICredentialsDecrypted;
	try {
		credentialsDecrypted = {
			id: `harness-${credentialType.name}`,
			name: `${credentialType.name} (harness)`,
			type: credentialType.name,
			data: credentialsHelper.applyDefaults(
				baseAdditionalData,
				{ ...opts.data },
				credentialType.name,
				'internal',
			),
		};
	} catch (error) {
		return { status: 'Error', message: String((error as Error).message) };
	}

	// A throwaway node type whose only property routes the test request (as n8n's noOp copy).
	const tempTypeName = 'n8n-nodes-base.noOp';
	const tempType: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: tempTypeName,
			group: ['organization'],
			version: 1,
			description: '',
			defaults: { name: 'No Operation, do nothing' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const nodeTypes = new HarnessNodeTypes();
	nodeTypes.register(tempTypeName, tempType);
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: tempTypeName,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: {
			[credentialType.name]: { id: credentialsDecrypted.id, name: credentialsDecrypted.name },
		},
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		baseAdditionalData,
		'internal',
		createEmptyRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);

	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await new RoutingNode(context, tempType, credentialsDecrypted).runNode();
	} catch (caught) {
		const error = caught as ErrorWithCause;
		const httpResponse = error.cause?.response;
		if (httpResponse?.status !== undefined) {
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && rule.properties.value === httpResponse.status) {
					return { status: 'Error', message: rule.properties.message };
				}
			}
			if (httpResponse.status < 199 || httpResponse.status > 299) {
				return {
					status: 'Error',
					message: httpResponse.statusText || `Received HTTP status code: ${httpResponse.status}`,
				};
			}
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: String(error.message) };
	}

	for (const rule of testRequest.rules ?? []) {
		if (rule.type === 'responseSuccessBody') {
			const json = response?.[0]?.[0]?.json ?? {};
			const value = rule.properties.key
				.split('.')
				.reduce<unknown>((acc, key) => (acc as IDataObject | undefined)?.[key], json);
			if (value === rule.properties.value) {
				return { status: 'Error', message: rule.properties.message };
			}
		}
	}
	return { status: 'OK', message: 'Connection successful!' };
}
