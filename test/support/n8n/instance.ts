/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * A real n8n (a pinned version from hosts/, on the Node it pins) for the end-to-end tests, `npm start` and the
 * benchmark: started headless and offline, over HTTPS when asked, with an owner and a
 * public-API key; stopped, with its task runners, by stop() or when this process ends.
 *
 * startN8nProcess() starts one process of any role (`n8n start`, `n8n webhook`, `n8n worker`):
 * queue mode (queue.ts) runs several over one database; startN8n() is the main process with
 * its owner, as a single-process n8n and queue mode's main both need.
 */
import { type ChildProcess } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';
import { Agent } from 'undici';

import { expectOk, httpRequest, N8nApi, N8nHttpError, type Requester } from './api';
import { ensureHost, hostNodeEnv, type HostPaths, hostPaths } from './hosts/provision';
import { n8nMajor } from './hosts/versions';
import { freePort } from '../ports';
import { eachLine, hasExited, outputEnded, signalGroup, startProcess, stopProcess } from './process';
import { selfSignedPair } from './tls';

/** Which n8n command runs: the main process (editor, activation), a webhook process or a worker (queue mode). */
export type N8nRole = 'main' | 'webhook' | 'worker';

export interface StartOptions {
	/** Default: main (`n8n start`). */
	role?: N8nRole;
	/** A worker's `--concurrency` (n8n's default: 10). */
	concurrency?: number;
	/** n8n's N8N_USER_FOLDER (it keeps its data in `<userFolder>/.n8n`). Default: a new temp folder. */
	userFolder?: string;
	/** Default: a free port. */
	port?: number;
	/** The task-runner broker's port. Default: a free port. */
	brokerPort?: number;
	/** Serve HTTPS with a self-signed pair for 127.0.0.1/localhost, made in the user folder. */
	https?: boolean;
	/**
	 * n8n 2.x's expression engine (N8N_EXPRESSION_ENGINE; 1.x has only the legacy one). Default: n8n's own, `vm`: each
	 * execution gets an isolated-vm isolate, made and disposed for it. `legacy` evaluates in n8n's process, as 1.x
	 * does and as a 2.x user may set (2.41 warns that it is deprecated). The suites that run long fault scripts
	 * (gaps, queue, lifecycles) choose it, since what they show does not depend on how n8n evaluates an
	 * expression; the recipes' suite (record), the run's shared n8n (shared.ts: deliveries, the examples and the
	 * editor) and the watch lists keep the default, so the recipes run on both engines. (queue's first run on `legacy` met an n8n race that its faster
	 * deliveries widen, a deactivated webhook kept in n8n's cache: record.ts, recipes(), says how it is kept out of
	 * the way.)
	 * Measured on the record script (200 blocks, seed 904091377, alone on this project's 2-core machine):
	 * 112.6 s with `vm`, 64.6 s with `legacy`, at about half the machine's CPU; a profile of n8n's main thread
	 * put 27 % of its busy time in the isolates' bridge, besides the isolates' own threads.
	 */
	expressionEngine?: 'vm' | 'legacy';
	/** Extra environment for n8n (wins over the defaults). */
	env?: Record<string, string>;
	/** Each line n8n prints (stdout and stderr). */
	log?: (line: string) => void;
	/** How long to wait for readiness. Default 180 s: a first start migrates a new database, which takes over a minute on a busy 2-core machine. */
	readyTimeoutMs?: number;
	/** Which n8n (one of hosts/versions.ts). Default: the selected one (STACKS_HOOKS_N8N, else the newest 2.x). */
	n8nVersion?: string;
	/** Provisioning progress messages. Default: console.log. */
	provisionLog?: (msg: string) => void;
	/** Opens Node's inspector on this port of 127.0.0.1 (inspector.ts): the memory test and the benchmark look inside n8n through it. */
	inspectorPort?: number;
}

/** A running n8n main process with its owner, as startN8n returns it. */
export type N8nInstance = Awaited<ReturnType<typeof startN8n>>;
/** A running n8n process of any role, as startN8nProcess returns it. */
export type N8nProcess = Awaited<ReturnType<typeof startN8nProcess>>;

/** Where the owner's email, password and API key (and our encryption key) are kept in the user folder. */
export const STATE_FILE = 'e2e-owner.json';
const LOG_LINES = 5000;

interface OwnerState {
	email?: string;
	password?: string;
	apiKey?: string;
	encryptionKey?: string;
}

function readState(userFolder: string): OwnerState {
	try {
		return JSON.parse(fs.readFileSync(path.join(userFolder, STATE_FILE), 'utf8')) as OwnerState;
	} catch {
		return {};
	}
}

function updateState(userFolder: string, change: OwnerState): OwnerState {
	const state = { ...readState(userFolder), ...change };
	fs.writeFileSync(path.join(userFolder, STATE_FILE), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
	return state;
}

/** The user folder's encryption key: n8n's own config's if it exists, else ours, else a new one. */
function encryptionKeyFor(userFolder: string): string {
	try {
		const config = JSON.parse(fs.readFileSync(path.join(userFolder, '.n8n', 'config'), 'utf8')) as { encryptionKey?: string };
		if (config.encryptionKey) return config.encryptionKey;
	} catch {
		/* a new folder */
	}
	return readState(userFolder).encryptionKey ?? updateState(userFolder, { encryptionKey: randomBytes(24).toString('base64url') }).encryptionKey!;
}

/** The inherited environment, without what would change how n8n runs. */
export function inheritedEnv(host: HostPaths): Record<string, string> {
	// NODE_ENV=test (set by jest) makes n8n exit at start without a word.
	const dropped = ['WEBHOOK_URL', 'NODE_ENV', 'JEST_WORKER_ID', 'NODE_OPTIONS', 'NODE_TLS_REJECT_UNAUTHORIZED', 'npm_config_nodedir'];
	return Object.fromEntries(
		Object.entries(hostNodeEnv(host, process.env)).filter(
			(entry): entry is [string, string] =>
				entry[1] !== undefined && !dropped.includes(entry[0]) && !/^(N8N_|DB_|QUEUE_|EXECUTIONS_|GENERIC_|NODE_FUNCTION_)/.test(entry[0]),
		),
	);
}

/**
 * How long stop() waits before SIGKILL. n8n's own shutdown waits up to N8N_GRACEFUL_SHUTDOWN_TIMEOUT (30 s) for running
 * executions: a worker killed sooner loses the job it was running.
 */
export const N8N_STOP_GRACE_MS = 35_000;

/** A client of the n8n at `baseUrl`, trusting `certificate` (PEM) over HTTPS. */
function clientOf(baseUrl: string, certificate: string | undefined): { dispatcher: Agent | undefined; request: Requester } {
	const dispatcher = certificate ? new Agent({ connect: { ca: certificate } }) : undefined;
	const request: Requester = (pathOrUrl, options) => httpRequest(/^https?:/.test(pathOrUrl) ? pathOrUrl : `${baseUrl}${pathOrUrl}`, options, dispatcher);
	return { dispatcher, request };
}

/** `<webhookBaseUrl>webhook/<path>`: the production webhook URL of a node whose path is `path`. */
function webhookUrlOf(webhookBaseUrl: string): (webhookPath: string) => string {
	return (webhookPath) => `${webhookBaseUrl}webhook/${webhookPath.replace(/^\/+/, '')}`;
}

/** Starts n8n's main process (provisioning its host folder first when needed); resolves when it is ready and has an owner and an API key. */
export async function startN8n(opts: StartOptions = {}) {
	const proc = await startN8nProcess({ ...opts, role: 'main' });
	let api: N8nApi;
	try {
		api = await ensureOwner(proc.userFolder, proc.request, proc.host.version);
	} catch (error) {
		await proc.stop();
		throw error;
	}
	const state = readState(proc.userFolder);
	return Object.assign(proc, {
		owner: { email: state.email!, password: state.password! },
		api,
	});
}

/** Starts one n8n process of `opts.role` (provisioning its host folder first when needed); resolves when it answers its readiness check. */
export async function startN8nProcess(opts: StartOptions = {}) {
	const role = opts.role ?? 'main';
	const host = await ensureHost(opts.n8nVersion, opts.provisionLog);
	const userFolder = path.resolve(opts.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-')));
	fs.mkdirSync(userFolder, { recursive: true });
	const port = opts.port ?? (await freePort());
	let brokerPort = opts.brokerPort ?? (await freePort());
	while (brokerPort === port) brokerPort = await freePort();
	const tls = opts.https ? await selfSignedPair(path.join(userFolder, 'e2e-tls')) : undefined;
	// A worker's health server is plain HTTP whatever N8N_PROTOCOL says (n8n's scaling/worker-server.js).
	const baseUrl = `${tls && role !== 'worker' ? 'https' : 'http'}://127.0.0.1:${port}`;
	const { dispatcher, request } = clientOf(baseUrl, tls?.cert);
	const webhookBaseUrl = opts.env?.N8N_WEBHOOK_URL ?? opts.env?.WEBHOOK_URL ?? `${baseUrl}/`;
	const major = n8nMajor(host.version);
	const env: Record<string, string> = {
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: encryptionKeyFor(userFolder),
		DB_TYPE: 'sqlite',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_PROTOCOL: tls ? 'https' : 'http',
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		// Base of production and test webhooks: N8N_WEBHOOK_URL since 2.x (WEBHOOK_URL is deprecated
		// in 2.41), WEBHOOK_URL in 1.x, which does not know the new name.
		...(major >= 2 ? { N8N_WEBHOOK_URL: webhookBaseUrl } : { WEBHOOK_URL: webhookBaseUrl }),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		// 2.x calls out at start without it; 1.x has no such module and refuses the name.
		...(major >= 2 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {}),
		...(major >= 2 && opts.expressionEngine ? { N8N_EXPRESSION_ENGINE: opts.expressionEngine } : {}),
		N8N_HIRING_BANNER_ENABLED: 'false',
		// Node's on-disk code cache for n8n's modules (Node 22.1+; older Nodes ignore it), beside the host's tree: a run
		// starts n8n about fifty times, and each start after the first compiles less (8.2 against 10.0 s of CPU for a
		// start, measured on this machine). It changes nothing n8n does; deleting node_modules clears it.
		NODE_COMPILE_CACHE: path.join(host.hostDir, 'node_modules', '.node-compile-cache'),
		// n8n trusts its own certificate, as a public one would be: the trigger's health check calls the
		// trigger's own webhook URL (healthCheck/channel/ownWebhook.ts).
		...(tls ? { N8N_SSL_KEY: tls.keyPath, N8N_SSL_CERT: tls.certPath, NODE_EXTRA_CA_CERTS: tls.certPath } : {}),
		// A worker serves no editor; its readiness check listens on this port.
		...(role === 'worker' ? { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port) } : {}),
		...opts.env,
	};
	const args = role === 'main' ? ['start'] : role === 'webhook' ? ['webhook'] : ['worker', ...(opts.concurrency ? [`--concurrency=${opts.concurrency}`] : [])];

	const lines: string[] = [];
	const addLine = (line: string) => {
		lines.push(line);
		if (lines.length > LOG_LINES) lines.splice(0, lines.length - LOG_LINES);
		opts.log?.(line);
	};
	const tail = () => `--- last 40 lines of its output ---\n${lines.slice(-40).join('\n')}`;
	let child: ChildProcess;
	let stopping: Promise<void> | undefined;

	const launch = async (): Promise<void> => {
		const nodeArgs = opts.inspectorPort ? [`--inspect=127.0.0.1:${opts.inspectorPort}`] : [];
		child = startProcess(host.node, [...nodeArgs, host.n8nBin, ...args], { cwd: userFolder, env: { ...inheritedEnv(host), ...env } });
		const launchedAt = Date.now();
		stopping = undefined;
		// n8n's readiness check answers once the database is up, which can be before it serves: a main
		// before its REST API is mounted (1.123) and its published workflows are active, a webhook
		// process before it has loaded the active workflows' webhooks (1.x). Each prints a line once done.
		const readyLine = { main: 'Editor is now accessible via', webhook: 'Webhook listener waiting for requests', worker: undefined }[role];
		const seen = { editor: readyLine === undefined };
		eachLine(child, (line) => {
			seen.editor ||= readyLine !== undefined && line.includes(readyLine);
			addLine(line);
		});
		let spawnError: Error | undefined;
		child.once('error', (error) => (spawnError = error));
		const started = child;
		child.once('exit', (code, signal) => addLine(`[harness] n8n (pid ${started.pid}) exited with ${signal ?? `code ${code}`}`));
		const timeoutMs = opts.readyTimeoutMs ?? 180_000;
		for (const deadline = Date.now() + timeoutMs; ; await sleep(250)) {
			if (spawnError || hasExited(child)) {
				await outputEnded(child, 5000);
				const how = spawnError?.message ?? `exit ${child.signalCode ?? child.exitCode}`;
				const after = `${((Date.now() - launchedAt) / 1000).toFixed(1)} s after it was started`;
				throw new Error(`n8n ${args[0]} exited before it was ready (${how}, ${after}).\n${tail()}`);
			}
			if (Date.now() > deadline) {
				await stopProcess(child, 2000);
				throw new Error(`n8n ${args[0]} was not ready within ${timeoutMs / 1000} s at ${baseUrl}.\n${tail()}`);
			}
			const ready = seen.editor && (await request('/healthz/readiness', { timeoutMs: 2000 }).catch(() => undefined));
			if (ready && ready.status === 200) return;
		}
	};
	const stop = () => (stopping ??= stopProcess(child, N8N_STOP_GRACE_MS));

	await launch();
	return {
		role,
		/** e.g. `https://127.0.0.1:40123` (no trailing slash). */
		baseUrl,
		/** The N8N_WEBHOOK_URL given to n8n, with a trailing slash. */
		webhookBaseUrl,
		port,
		brokerPort,
		userFolder,
		/** Where Node's inspector listens, when it was asked for. */
		inspectorPort: opts.inspectorPort,
		/** The running n8n (a new one after restart()); its pid is also its process group's id. */
		get process(): ChildProcess {
			return child;
		},
		/** The environment n8n runs with (without the inherited PATH & co.). */
		env,
		/** The server's certificate (PEM) when HTTPS; clients trust it as their `ca`. */
		certificate: tls?.cert,
		/** For undici's fetch: trusts `certificate` (undefined over HTTP). */
		dispatcher,
		host,
		/** SIGTERM, SIGKILL after 35 s; resolves once n8n and its task runners are gone. Idempotent. */
		stop,
		/** stop(), then start again with the same folder, ports and environment; resolves when ready. */
		async restart(): Promise<void> {
			await stop();
			addLine('[harness] ---- restart ----');
			await launch();
		},
		/** SIGKILL to n8n and its task runners at once, as a crash or an OOM kill would: nothing of n8n's shutdown runs. restart() brings it back. */
		async crash(): Promise<void> {
			const crashed = child;
			const exited = hasExited(crashed) ? Promise.resolve() : new Promise<void>((resolve) => crashed.once('exit', () => resolve()));
			addLine('[harness] ---- SIGKILL ----');
			if (crashed.pid) signalGroup(crashed.pid, 'SIGKILL');
			await exited;
		},
		/** The last lines n8n printed (stdout and stderr), across restarts. */
		logs: () => lines.join('\n'),
		/** A request to this instance: a path (`/webhook/x`) or a full URL; TLS handled. */
		request,
		/** `<webhookBaseUrl>webhook/<path>`: the production webhook URL of a node whose path is `path`. */
		webhookUrl: webhookUrlOf(webhookBaseUrl),
	};
}

/** What a suite may reach of an n8n it did not start (shared.ts): no stop, restart or crash, which are its starter's. */
export type RunningN8n = Pick<N8nInstance, 'baseUrl' | 'webhookBaseUrl' | 'userFolder' | 'certificate' | 'dispatcher' | 'request' | 'webhookUrl' | 'api' | 'owner' | 'host' | 'env' | 'inspectorPort'>;

/** The facts another process needs to reach a running n8n (attachN8n): plain data, written to a file. */
export interface N8nAddress {
	baseUrl: string;
	webhookBaseUrl: string;
	userFolder: string;
	certificate?: string;
	version: string;
	env: Record<string, string>;
	inspectorPort?: number;
}

/** The address of a running n8n, for attachN8n in another process. */
export function addressOf(n8n: N8nInstance): N8nAddress {
	return { baseUrl: n8n.baseUrl, webhookBaseUrl: n8n.webhookBaseUrl, userFolder: n8n.userFolder, certificate: n8n.certificate, version: n8n.host.version, env: n8n.env, inspectorPort: n8n.inspectorPort };
}

/** An n8n that another process started and runs, reached as its owner with the key its user folder keeps. */
export async function attachN8n(address: N8nAddress): Promise<RunningN8n> {
	const { dispatcher, request } = clientOf(address.baseUrl, address.certificate);
	const api = await ensureOwner(address.userFolder, request, address.version);
	const state = readState(address.userFolder);
	return {
		baseUrl: address.baseUrl,
		webhookBaseUrl: address.webhookBaseUrl,
		userFolder: address.userFolder,
		certificate: address.certificate,
		dispatcher,
		request,
		webhookUrl: webhookUrlOf(address.webhookBaseUrl),
		api,
		owner: { email: state.email!, password: state.password! },
		host: hostPaths(address.version),
		env: address.env,
		inspectorPort: address.inspectorPort,
	};
}

/** Resources whose public-API scopes the key gets: workflows, credentials, executions and their tags, data tables (n8n ≥ 2 offers them) and their rows. */
const API_KEY_RESOURCES = ['workflow', 'workflowTags', 'credential', 'execution', 'executionTags', 'tag', 'dataTable', 'dataTableRow'];

/** Sets up the owner and an API key in a new user folder; in a known one, uses what STATE_FILE holds. */
async function ensureOwner(userFolder: string, request: Requester, n8nVersion: string): Promise<N8nApi> {
	const known = readState(userFolder);
	const owner = { email: known.email ?? 'owner@stacks-hooks.example.com', password: known.password ?? `E2e-${randomBytes(9).toString('base64url')}-9x` };
	const api = new N8nApi(request, owner, n8nVersion);
	// Whether the setup screen would show: no owner yet.
	const settings = (await api.restCall('GET', '/settings')).json as { data?: { userManagement?: { showSetupOnFirstLoad?: boolean } } };
	if (settings?.data?.userManagement?.showSetupOnFirstLoad !== false) {
		const setup = await api.restCall('POST', '/owner/setup', { ...owner, firstName: 'E2E', lastName: 'Owner' });
		expectOk('POST', '/rest/owner/setup', setup);
		updateState(userFolder, owner);
	} else if (!known.email || !known.password) {
		throw new Error(`n8n in ${userFolder} already has an owner, but ${path.join(userFolder, STATE_FILE)} does not hold its email and password.`);
	}
	api.apiKey = known.apiKey ?? updateState(userFolder, { apiKey: await createApiKey(api) }).apiKey!;
	return api;
}

/** A public-API key for the owner with every scope of API_KEY_RESOURCES that n8n grants the owner. */
async function createApiKey(api: N8nApi): Promise<string> {
	// n8n 1.85 has no scopes yet (GET /rest/api-keys/scopes answers 404): its keys may do everything.
	const offered = await api.rest('GET', '/api-keys/scopes').then(
		(answer) => (answer as { data?: string[] }).data ?? [],
		(error: unknown) => {
			if (error instanceof N8nHttpError && error.status === 404) return undefined;
			throw error;
		},
	);
	const scopes = offered?.filter((scope) => API_KEY_RESOURCES.includes(scope.split(':')[0]));
	if (scopes && !scopes.includes('workflow:create')) throw new Error(`n8n offered no usable API key scopes: ${JSON.stringify(offered)}`);
	const answer = (await api.rest('POST', '/api-keys', { label: `e2e ${new Date().toISOString()}`, ...(scopes && { scopes }), expiresAt: null })) as {
		data?: { rawApiKey?: string };
	};
	if (!answer.data?.rawApiKey) throw new Error(`POST /rest/api-keys returned no rawApiKey: ${JSON.stringify(answer).slice(0, 500)}`);
	return answer.data.rawApiKey;
}
