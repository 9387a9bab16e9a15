/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Runs this package's nodes through n8n's real execution engine (n8n-core), in-process.
 *
 * - runNode:        the node run by `WorkflowExecute.run()`, the given items as its input
 * - runHookMethod:  webhookMethods.default.checkExists/create/delete on a real HookContext
 * - runWebhook:     node.webhook() on a real WebhookContext
 * - runTestDelivery: a delivery to the test URL: webhook() in manual mode, then the execution n8n
 *                   starts with its items (WorkflowExecute in manual mode, from the node's data)
 * - startTrigger:   node.trigger() on a real TriggerContext (an active workflow, or a test run)
 * - runListSearch:  methods.listSearch.<name> on a real LoadOptionsContext
 * - testCredential: a credential type's `test.request` sent as n8n's credential dialog does
 *                   (n8n-core's RoutingNode on an ExecuteContext, as the CLI's CredentialsTester)
 *
 * Expressions are resolved by n8n-workflow and HTTP goes through n8n-core's request helpers.
 * n8n-core exports these contexts but no node-type registry, additional-data builder or
 * credentials helper: those are the CLI's (its DI container and database), so the few lines
 * standing in for them are here and in credentials-helper.ts.
 */
import {
	ExecuteContext,
	ExecutionLifecycleHooks,
	ExternalSecretsProxy,
	HookContext,
	TriggerContext,
	LoadOptionsContext,
	RoutingNode,
	WebhookContext,
	WorkflowExecute,
} from 'n8n-core';
import { NodeApiError, NodeHelpers, NodeOperationError, UnexpectedError, Workflow, createEmptyRunExecutionData, createRunExecutionData, deepCopy } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IRunData,
	ITriggerResponse,
	IVersionedNodeType,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	NodeExecutionHint,
	WorkflowActivateMode,
} from 'n8n-workflow';

import { HarnessCredentialsHelper, withDefaults, type CredentialsMap } from './credentials-helper';
import { prepareEngineEnvironment } from './environment';
import { PACKAGE_NAME } from '../paths';

prepareEngineEnvironment();

export type { CredentialsMap };

/** Node types are named as n8n names a community package's: `<package>.<name>`. */
/** The instance the harness stands for: n8n's defaults for N8N_HOST=127.0.0.1, port 5678. */
const INSTANCE = 'http://127.0.0.1:5678';
/** The webhookId n8n would have given the node (fixed, for predictable URLs). */
const WEBHOOK_ID = '6d0e5f43-2a61-4c1e-9d6b-4b1f8c9a7e21';

export interface NodeOptions {
	nodeType: INodeType | IVersionedNodeType;
	credentialTypes?: ICredentialType[];
	credentials?: CredentialsMap;
	parameters?: INodeParameters;
}

interface WorkflowOptions {
	workflowId?: string;
	workflowName?: string;
	/** The node's static data (the workflow's `node:<name>` entry); Workflow proxies this very object, so the node's writes land in it. */
	staticData?: IDataObject;
	active?: boolean;
	node?: Partial<INode>;
	/** Overrides of the additional data (URLs, the webhook request and response, ...). */
	additionalData?: Partial<IWorkflowExecuteAdditionalData>;
}

interface Setup {
	type: INodeType;
	node: INode;
	workflow: Workflow;
	additionalData: IWorkflowExecuteAdditionalData;
}

/** A workflow holding the node under test, with the additional data n8n's CLI would hand its contexts. */
function setUp(opts: NodeOptions, wf: WorkflowOptions = {}): Setup {
	const { name } = opts.nodeType.description;
	const typeName = name.includes('.') ? name : `${PACKAGE_NAME}.${name}`;
	const type = NodeHelpers.getVersionedNodeType(opts.nodeType);
	const { version, defaults, displayName } = type.description;
	const credentials = opts.credentials ?? {};
	const node: INode = {
		id: 'a9b3c1d2-0000-4000-8000-000000000001',
		name: defaults.name ?? displayName,
		type: typeName,
		typeVersion: Array.isArray(version) ? Math.max(...version) : version,
		position: [0, 0],
		parameters: deepCopy(opts.parameters ?? {}),
		webhookId: WEBHOOK_ID,
		...wf.node,
	};
	if (Object.keys(credentials).length > 0) {
		node.credentials = Object.fromEntries(Object.keys(credentials).map((key) => [key, { id: `harness-${key}`, name: key }]));
	}
	const nodeTypes: INodeTypes = {
		getByName: (wanted) => {
			if (wanted !== typeName) throw new UnexpectedError(`Unrecognized node type: ${wanted}`);
			return opts.nodeType;
		},
		getByNameAndVersion: (wanted, v) => NodeHelpers.getVersionedNodeType(nodeTypes.getByName(wanted), v),
		getKnownTypes: () => ({}),
	};
	const workflow = new Workflow({
		id: wf.workflowId ?? 'harnessWorkflow1',
		name: wf.workflowName ?? 'Harness Workflow',
		nodes: [node],
		connections: {},
		active: wf.active ?? false,
		nodeTypes,
		staticData: wf.staticData ? { [`node:${node.name}`]: wf.staticData } : {},
		settings: { executionOrder: 'v1' },
	});
	const unsupported = (what: string) => async () => {
		throw new UnexpectedError(`${what} is not supported by the engine harness`);
	};
	const additionalData: IWorkflowExecuteAdditionalData = {
		credentialsHelper: new HarnessCredentialsHelper(opts.credentialTypes ?? [], credentials),
		executeWorkflow: unsupported('executeWorkflow'),
		startRunnerTask: unsupported('Task runners'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		workflowId: workflow.id,
		instanceBaseUrl: `${INSTANCE}/`,
		restApiUrl: `${INSTANCE}/rest`,
		webhookBaseUrl: `${INSTANCE}/webhook`,
		webhookTestBaseUrl: `${INSTANCE}/webhook-test`,
		webhookWaitingBaseUrl: `${INSTANCE}/webhook-waiting`,
		formBaseUrl: `${INSTANCE}/form`,
		formTestBaseUrl: `${INSTANCE}/form-test`,
		formWaitingBaseUrl: `${INSTANCE}/form-waiting`,
		mcpBaseUrl: `${INSTANCE}/mcp`,
		mcpTestBaseUrl: `${INSTANCE}/mcp-test`,
		...wf.additionalData,
	};
	return { type, node, workflow, additionalData };
}

/** What n8n's webhook registration keeps for the node's 'default' webhook. */
function webhookData(s: Setup, isTest: boolean): IWebhookData {
	const webhookDescription = s.type.description.webhooks?.find((webhook) => webhook.name === 'default');
	if (webhookDescription === undefined) throw new UnexpectedError(`Node type "${s.node.type}" has no default webhook`);
	return {
		httpMethod: webhookDescription.httpMethod as IWebhookData['httpMethod'],
		node: s.node.name,
		path: NodeHelpers.getNodeWebhookPath(s.workflow.id, s.node, String(webhookDescription.path)),
		webhookDescription,
		workflowId: s.workflow.id,
		workflowExecuteAdditionalData: s.additionalData,
		webhookId: s.node.webhookId,
		isTest,
		staticData: s.workflow.staticData,
	};
}

// ---------------------------------------------------------------------------------------------

export interface RunNodeOptions extends NodeOptions {
	parameters: INodeParameters;
	items?: IDataObject[] | INodeExecutionData[];
	/** Node setting "On Error: Continue" (node.onError = 'continueRegularOutput'). */
	continueOnFail?: boolean;
}

export interface RunNodeResult {
	/** First output of the node. */
	items: INodeExecutionData[];
	/** The error the node's run ended with: n8n's copy in the run data, with its class (NodeApiError, NodeOperationError) restored. */
	error?: Error;
	/** The same error as n8n stores it in the run data. */
	reportedError?: IDataObject;
	/** The execution hints the node added (shown in n8n's output pane). */
	hints: NodeExecutionHint[];
	runData: IRunData;
	run: IRun;
}

export async function runNode(opts: RunNodeOptions): Promise<RunNodeResult> {
	const setup = setUp(opts, { node: opts.continueOnFail ? { onError: 'continueRegularOutput' } : {} });
	const { workflow, node } = setup;
	const items = (opts.items ?? [{}]).map((item) =>
		deepCopy('json' in item && typeof item.json === 'object' ? (item as INodeExecutionData) : { json: item as IDataObject }),
	);
	const executionId = 'harness-execution-1';
	const base = { id: workflow.id, name: workflow.name, active: false, isArchived: false, nodes: [node], connections: {}, settings: {} };
	setup.additionalData.hooks = new ExecutionLifecycleHooks('manual', executionId, base as unknown as IWorkflowBase);
	setup.additionalData.executionId = executionId;
	// The node is the start node and the items its input, as a trigger's output would be.
	const run = await new WorkflowExecute(setup.additionalData, 'manual').run({
		workflow,
		startNode: node,
		triggerToStartFrom: { name: node.name, data: { startTime: 0, executionTime: 0, executionIndex: 0, source: [], data: { main: [items] } } },
	});
	const runData = run.data.resultData.runData;
	const last = runData[node.name]?.at(-1);
	const reported = (last?.error ?? run.data.resultData.error) as IDataObject | undefined;
	const errorClasses: Record<string, Error> = { NodeApiError: NodeApiError.prototype, NodeOperationError: NodeOperationError.prototype };
	return {
		items: last?.data?.main[0] ?? [],
		...(reported && {
			error: Object.assign(Object.create(errorClasses[String(reported.name)] ?? Error.prototype) as Error, reported),
			reportedError: reported,
		}),
		hints: last?.hints ?? [],
		runData,
		run,
	};
}

// ---------------------------------------------------------------------------------------------

export interface RunHookMethodOptions extends NodeOptions {
	method: 'checkExists' | 'create' | 'delete';
	/** The node's static data: mutated in place, so it carries across calls (activate -> deactivate). */
	staticData: IDataObject;
	/**
	 * What `getNodeWebhookUrl('default')` returns: the harness sets the instance's base URL and
	 * the node's webhookId so that n8n-core computes it (`<base>/<webhookId>/<path>`).
	 * Default: n8n's own, `http://127.0.0.1:5678/webhook[-test]/<webhookId>/<path>`.
	 */
	webhookUrl?: string;
	/** 'trigger' = workflow activation (production URL); 'manual' = the editor's "listen for test event". */
	mode?: 'trigger' | 'manual';
	/** How n8n activates the workflow ('activate' unless said: a user's activation; 'init': n8n's start). */
	activation?: WorkflowActivateMode;
	workflowName?: string;
	workflowId?: string;
}

/** The node's webhookId and the instance's webhook base URL that make n8n-core compute `webhookUrl` for the node. */
function atWebhookUrl(opts: NodeOptions & { webhookUrl?: string }, isTest: boolean): Pick<WorkflowOptions, 'node' | 'additionalData'> {
	if (opts.webhookUrl === undefined) return {};
	const path = NodeHelpers.getVersionedNodeType(opts.nodeType).description.webhooks?.find((webhook) => webhook.name === 'default')?.path;
	const parts = new RegExp(`^(.+)/([^/]+)/${String(path)}$`).exec(opts.webhookUrl);
	if (!parts) throw new UnexpectedError(`${opts.webhookUrl} is not <base>/<webhookId>/${String(path)}`);
	return { node: { webhookId: parts[2] }, additionalData: { [isTest ? 'webhookTestBaseUrl' : 'webhookBaseUrl']: parts[1] } };
}

export async function runHookMethod(opts: RunHookMethodOptions): Promise<boolean | undefined> {
	const mode = opts.mode ?? 'trigger';
	const isTest = mode === 'manual';
	const wf: WorkflowOptions = { workflowId: opts.workflowId, workflowName: opts.workflowName, staticData: opts.staticData, active: !isTest, ...atWebhookUrl(opts, isTest) };
	const setup = setUp(opts, wf);
	const context = new HookContext(setup.workflow, setup.node, setup.additionalData, mode, isTest ? 'manual' : (opts.activation ?? 'activate'), webhookData(setup, isTest));
	const method = setup.type.webhookMethods?.default?.[opts.method];
	if (method === undefined) throw new UnexpectedError(`Node type "${setup.node.type}" has no webhookMethods.default.${opts.method}`);
	return (await method.call(context)) as boolean | undefined;
}

// ---------------------------------------------------------------------------------------------

export interface RunWebhookOptions extends NodeOptions {
	headers: Record<string, string>;
	/** The body as n8n hands it to the node: already parsed. */
	body: unknown;
	/** The raw bytes n8n keeps beside it (default: a string body as is, else its JSON). */
	rawBody?: Buffer | string;
	staticData?: IDataObject;
	/** Default: the harness's one workflow. The trigger keeps per-workflow state between deliveries. */
	workflowId?: string;
	/** 'webhook' (default): a production delivery; 'manual': a delivery to the test URL while listening. */
	mode?: 'webhook' | 'manual';
	/** The connection it came in on, as express's request shows it: the local end (n8n's own server) and the path served. */
	arrivedAt?: { localAddress: string; localPort: number; encrypted?: boolean; path: string };
}

export interface RunWebhookResult {
	response: IWebhookResponseData;
	/**
	 * What the sender gets: the node's own answer through getResponseObject().status().json(), else,
	 * as n8n 2.41 does for an "onReceived" webhook whose node returned a webhookResponse (and an empty
	 * responseData), 200 with that webhookResponse once the execution has started. Unset when neither.
	 */
	status?: number;
	sentBody?: unknown;
}

/**
 * A production delivery to the node's webhook. The request and response are in-memory stand-ins
 * for n8n's express objects, with only what n8n's WebhookContext and the trigger read
 * (headers, body, rawBody, query, params; `res.status().json()`): a loopback server's real
 * ServerResponse could answer once, and the bench calls webhook() thousands of times on one context.
 */
export async function runWebhook(opts: RunWebhookOptions): Promise<RunWebhookResult> {
	const answer: { status?: number; body?: unknown } = {};
	const res = {
		status(code: number) {
			answer.status = code;
			return res;
		},
		json(body: unknown) {
			answer.status ??= 200;
			answer.body = body;
			return res;
		},
	};
	const headers = Object.fromEntries(Object.entries(opts.headers).map(([name, value]) => [name.toLowerCase(), value]));
	const raw = opts.rawBody ?? (typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body ?? ''));
	const at = opts.arrivedAt;
	const arrived = at && { socket: { localAddress: at.localAddress, localPort: at.localPort, ...(at.encrypted && { encrypted: true }) }, originalUrl: at.path, url: at.path };
	const req = { method: 'POST', headers, body: opts.body, rawBody: Buffer.from(raw), query: {}, params: {}, ...arrived };
	const setup = setUp(opts, {
		workflowId: opts.workflowId,
		staticData: opts.staticData,
		active: true,
		additionalData: {
			httpRequest: req as unknown as IWorkflowExecuteAdditionalData['httpRequest'],
			httpResponse: res as unknown as IWorkflowExecuteAdditionalData['httpResponse'],
		},
	});
	const mode = opts.mode ?? 'webhook';
	const context = new WebhookContext(setup.workflow, setup.node, setup.additionalData, mode, webhookData(setup, mode === 'manual'), [], null);
	if (setup.type.webhook === undefined) throw new UnexpectedError(`Node type "${setup.node.type}" has no webhook()`);
	const response = await setup.type.webhook.call(context);
	if (answer.status === undefined && response.webhookResponse !== undefined && response.noWebhookResponse !== true) {
		answer.status = 200;
		answer.body = response.webhookResponse;
	}
	return { response, ...(answer.status !== undefined && { status: answer.status, sentBody: answer.body }) };
}

export interface RunTestDeliveryResult extends RunWebhookResult {
	/** The node's output in the execution n8n started, or undefined when webhook() started none. */
	items?: INodeExecutionData[];
	/** The error that execution ended with. */
	error?: IDataObject;
}

/**
 * A delivery to the test URL while the editor listens: webhook() in manual mode, then, as n8n's
 * webhook helper does (prepareExecutionData), an execution in manual mode whose stack starts at the
 * node with webhook()'s items as its data. For a node with trigger(), n8n-core then calls trigger().
 */
export async function runTestDelivery(opts: Omit<RunWebhookOptions, 'mode'>): Promise<RunTestDeliveryResult> {
	const delivered = await runWebhook({ ...opts, mode: 'manual' });
	const workflowData = delivered.response.workflowData;
	if (!workflowData) return delivered;
	const setup = setUp(opts, { workflowId: opts.workflowId, staticData: opts.staticData, active: false });
	const executionId = 'harness-test-execution-1';
	const base = { id: setup.workflow.id, name: setup.workflow.name, active: false, isArchived: false, nodes: [setup.node], connections: {}, settings: {} };
	setup.additionalData.hooks = new ExecutionLifecycleHooks('manual', executionId, base as unknown as IWorkflowBase);
	setup.additionalData.executionId = executionId;
	const runExecutionData = createRunExecutionData({ executionData: { nodeExecutionStack: [{ node: setup.node, data: { main: workflowData }, source: null }] } });
	const run = await new WorkflowExecute(setup.additionalData, 'manual', runExecutionData).processRunExecutionData(setup.workflow);
	const last = run.data.resultData.runData[setup.node.name]?.at(-1);
	const error = (last?.error ?? run.data.resultData.error) as IDataObject | undefined;
	return { ...delivered, items: last?.data?.main[0] ?? [], ...(error && { error }) };
}

/**
 * The logger n8n-core's contexts write to (`this.logger`): the Logger of n8n-core's own DI container.
 * n8n-core ships its own copies of @n8n/di and @n8n/backend-common, so they are resolved from it.
 */
export function n8nLogger(): { info: (message: string) => void; warn: (message: string) => void } {
	const from = { paths: [require.resolve('n8n-core')] };
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- a module loaded by its path at run time
	const { Container } = require(require.resolve('@n8n/di', from)) as typeof import('@n8n/di');
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- a module loaded by its path at run time
	const { Logger } = require(require.resolve('@n8n/backend-common', from)) as typeof import('@n8n/backend-common');
	return Container.get(Logger);
}

export interface StartTriggerOptions extends NodeOptions {
	/** The node's static data: the trigger reads and changes it in place, as the workflow's in n8n. */
	staticData: IDataObject;
	/** 'trigger' (default): an active workflow; 'manual': a test run. */
	mode?: 'trigger' | 'manual';
	/** Why n8n runs it: 'activate' (default), 'init' (n8n starting), 'manual'. */
	activation?: WorkflowActivateMode;
	webhookUrl?: string;
	workflowId?: string;
	workflowName?: string;
	/** Where the trigger's saveFailedExecution calls (its alerts) are kept. */
	failedExecutions?: Error[];
}

/** node.trigger() as n8n runs it for an active workflow: the response (closeFunction, ...) and its context. */
export async function startTrigger(opts: StartTriggerOptions): Promise<{ response: ITriggerResponse; context: TriggerContext }> {
	const mode = opts.mode ?? 'trigger';
	const setup = setUp(opts, { workflowId: opts.workflowId, workflowName: opts.workflowName, staticData: opts.staticData, active: mode !== 'manual', ...atWebhookUrl(opts, mode === 'manual') });
	const fail = (what: string) => () => {
		throw new UnexpectedError(`${what} was called outside a test run`);
	};
	// A failed execution the trigger records (its alerts, n8n 2.x): kept for the test to read.
	const saveFailedExecution = (error: Error) => void (opts.failedExecutions ?? []).push(error);
	const context = new TriggerContext(
		setup.workflow,
		setup.node,
		setup.additionalData,
		mode,
		opts.activation ?? (mode === 'manual' ? 'manual' : 'activate'),
		fail('emit'),
		fail('emitError'),
		saveFailedExecution,
	);
	if (setup.type.trigger === undefined) throw new UnexpectedError(`Node type "${setup.node.type}" has no trigger()`);
	const response = (await setup.type.trigger.call(context)) ?? {};
	return { response, context };
}

// ---------------------------------------------------------------------------------------------

/** As the CLI's DynamicNodeParametersService: the node's current parameters, asked from 'parameters'. */
export async function runListSearch(
	opts: NodeOptions & { method: string; filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	const setup = setUp(opts, { additionalData: { currentNodeParameters: deepCopy(opts.parameters ?? {}) } });
	const method = setup.type.methods?.listSearch?.[opts.method];
	if (method === undefined) throw new UnexpectedError(`Node type "${setup.node.type}" has no methods.listSearch.${opts.method}`);
	const context = new LoadOptionsContext(setup.workflow, setup.node, setup.additionalData, 'parameters');
	return await method.call(context, opts.filter, opts.paginationToken);
}

// ---------------------------------------------------------------------------------------------

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

/**
 * As the CLI's CredentialsTester for a type with `test.request`: the request routed by a
 * throwaway node type on n8n-core's RoutingNode; a refused request fails with the HTTP status
 * text, an unanswered one with the error code. (Response `rules` are not followed: this
 * package's credential has none.)
 */
export async function testCredential(opts: {
	credentialType: ICredentialType;
	data: ICredentialDataDecryptedObject;
}): Promise<CredentialTestResult> {
	const { credentialType } = opts;
	if (credentialType.test === undefined) return { status: 'Error', message: 'No testing function found for this credential.' };
	const tempType: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'n8n-nodes-base.noOp',
			group: ['organization'],
			version: 1,
			description: '',
			defaults: { name: 'Temp-Node' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: credentialType.test.request }, default: '' }],
		},
	};
	const { workflow, node, additionalData } = setUp({
		nodeType: tempType,
		credentialTypes: [credentialType],
		credentials: { [credentialType.name]: opts.data },
	});
	const decrypted = { id: `harness-${credentialType.name}`, name: credentialType.name, type: credentialType.name, data: withDefaults(credentialType, opts.data) };
	const inputData = { main: [[{ json: {} }]] };
	const context = new ExecuteContext(workflow, node, additionalData, 'internal', createEmptyRunExecutionData(), 0, [], inputData, { node, data: {}, source: null }, []);
	try {
		await new RoutingNode(context, tempType, decrypted).runNode();
	} catch (caught) {
		const { message, cause } = caught as { message?: string; cause?: { code?: string; response?: { status?: number; statusText?: string } } };
		const status = cause?.response?.status;
		if (status !== undefined && (status < 199 || status > 299)) {
			return { status: 'Error', message: cause?.response?.statusText || `Received HTTP status code: ${status}` };
		}
		return { status: 'Error', message: (status === undefined && cause?.code) || String(message) };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
