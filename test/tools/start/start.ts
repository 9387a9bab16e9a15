/**
 * `npm start`: a local n8n with this package installed, talking to the hooks
 * service emulator, with the example workflows imported and the trigger
 * example active. Sets up whatever is missing (n8n and Node 24 the first time),
 * prints one banner, and stops everything on Ctrl-C or SIGTERM.
 *
 * Kept between starts in .cache/ (ignored by git): n8n's user folder (owner,
 * credential, workflows, executions, its certificate), the emulator's consumer
 * secret, n8n's log.
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';

import { type Emulator, startEmulator } from '../../emulator';
import {
	freePort,
	installPackage,
	isProcessAlive,
	type N8nApi,
	type N8nInstance,
	packPackage,
	processTree,
	startN8n,
	type Workflow,
} from '../../support/n8n/n8n';
import { ensureHost, hostPaths } from '../../support/n8n/host/provision';
import {
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	type CredentialRef,
	exampleKeys,
	loadExample,
} from '../../support/examples';
import { REPO_DIR } from '../../support/paths';
import { type RunInfo, runInfoPath, readRunInfo } from './run-info';

const N8N_VERSION = '2.41.1';
const EMULATOR_API_KEY = 'demo-api-key';
const PREFERRED = { n8n: 5678, broker: 5679, emulator: 3999 };

const REPO = REPO_DIR;
const CACHE = path.join(REPO, '.cache');
const USER_FOLDER = path.join(CACHE, 'n8n-user');
const SETTINGS_FILE = path.join(CACHE, 'stacks-hooks-start.json');
const N8N_LOG = path.join(CACHE, 'n8n.log');
const CERT_FILE = path.join(CACHE, 'n8n-cert.pem');

interface Running {
	n8n?: N8nInstance;
	emulator?: Emulator;
	stopping?: Promise<void>;
}

const running: Running = {};

/* ------------------------------------------------------------------ output */

const seconds = (since: number) => `${Math.round((Date.now() - since) / 1000)} s`;

class StepError extends Error {
	constructor(
		readonly step: string,
		readonly cause: unknown,
		readonly whatToDo: string,
	) {
		super(`${step} failed`);
	}
}

/** Runs one set-up step: says what happens and how long it usually takes, then how long it took. */
async function step<T>(label: string, whatToDo: string, run: () => Promise<T> | T): Promise<T> {
	const started = Date.now();
	console.log(`▸ ${label}…`);
	try {
		const result = await run();
		console.log(`  done (${seconds(started)})`);
		return result;
	} catch (error) {
		throw new StepError(label.replace(/ \(.*\)$/, ''), error, whatToDo);
	}
}

function printFailure(error: unknown): void {
	console.error('');
	if (error instanceof StepError) {
		const message = error.cause instanceof Error ? error.cause.message : String(error.cause);
		console.error(`✖ ${error.step} failed:\n${indent(message)}`);
		console.error(`\nWhat to do: ${error.whatToDo}`);
	} else {
		console.error(`✖ npm start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
	}
	console.error(`(n8n's own log, when it got that far: ${path.relative(REPO, N8N_LOG)})`);
}

const indent = (text: string) =>
	text
		.split('\n')
		.map((line) => `    ${line}`)
		.join('\n');

/* ------------------------------------------------------------ persistence */

interface Settings {
	consumerSecret: string;
}

/** The emulator's consumer secret, made once and kept so the credential stays valid across starts. */
function loadSettings(): Settings {
	try {
		const saved = JSON.parse(fs.readFileSync(SETTINGS_FILE, 'utf8')) as Partial<Settings>;
		if (typeof saved.consumerSecret === 'string' && saved.consumerSecret) return { consumerSecret: saved.consumerSecret };
	} catch {
		/* first start */
	}
	const settings = { consumerSecret: randomBytes(32).toString('hex') };
	fs.writeFileSync(SETTINGS_FILE, JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 });
	return settings;
}

function refuseSecondInstance(): void {
	const info = readRunInfo();
	if (info && info.pid !== process.pid && isProcessAlive(info.pid)) {
		throw new StepError(
			'npm start',
			new Error(`npm start is already running (pid ${info.pid}), with n8n at ${info.n8nUrl}.`),
			`Use that one, or stop it (Ctrl-C in its terminal, or kill ${info.pid}) and run npm start again.`,
		);
	}
}

/* ------------------------------------------------------------------ ports */

function isPortFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** `preferred` when free, else any free port; never one of `taken`. */
async function choosePort(preferred: number, taken: number[] = []): Promise<number> {
	if (!taken.includes(preferred) && (await isPortFree(preferred))) return preferred;
	let port = await freePort();
	while (taken.includes(port)) port = await freePort();
	console.log(`  port ${preferred} is busy: using ${port}`);
	return port;
}

/* ---------------------------------------------------------------- set-up */

async function buildAndPack(): Promise<string> {
	return await step(
		'Building the package when its sources changed, and packing it (about 15 s)',
		'Fix the build errors shown above, then run npm start again.',
		() => packPackage(REPO),
	);
}

async function provisionHost(): Promise<void> {
	const firstTime = !fs.existsSync(hostPaths().n8nBin);
	const label = firstTime
		? `Installing n8n ${N8N_VERSION} and Node 24 into test/host (first time only, about 3 minutes)`
		: `Checking the n8n ${N8N_VERSION} host in test/host (already installed)`;
	await step(
		label,
		'Check that the npm registry is reachable (npm ping). To start the host over, delete test/host/node_modules.',
		() => ensureHost((message) => console.log(`  ${message}`)),
	);
}

async function installIntoUserFolder(tarball: string): Promise<void> {
	await step(
		`Installing the package into n8n's user folder ${path.relative(REPO, USER_FOLDER)} (as n8n installs community packages, about 15 s)`,
		`Check that the npm registry is reachable; to start over, delete ${path.relative(REPO, USER_FOLDER)}/.n8n/nodes.`,
		async () => {
			await installPackage(USER_FOLDER, tarball);
			fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
		},
	);
}

function n8nLogWriter(): (line: string) => void {
	fs.writeFileSync(N8N_LOG, `---- npm start ${new Date().toISOString()} ----\n`, { flag: 'a' });
	const stream = fs.createWriteStream(N8N_LOG, { flags: 'a' });
	return (line) => stream.write(`${line}\n`);
}

async function startEditor(port: number, brokerPort: number): Promise<N8nInstance> {
	return await step(
		`Starting n8n ${N8N_VERSION} on https://127.0.0.1:${port} (about 15 s; its log goes to ${path.relative(REPO, N8N_LOG)})`,
		`Look at the end of ${path.relative(REPO, N8N_LOG)}. If the user folder is damaged, delete ${path.relative(REPO, USER_FOLDER)} (you lose its workflows) and start again.`,
		async () => {
			const n8n = await startN8n({
				userFolder: USER_FOLDER,
				https: true,
				port,
				brokerPort,
				log: n8nLogWriter(),
				readyTimeoutMs: 120_000,
			});
			running.n8n = n8n;
			if (n8n.certificate) fs.writeFileSync(CERT_FILE, n8n.certificate);
			return n8n;
		},
	);
}

async function startHooksEmulator(port: number, certificate: string | undefined, consumerSecret: string): Promise<Emulator> {
	return await step(
		`Starting the Stacks hooks service emulator on http://127.0.0.1:${port}`,
		'Free the port (another emulator still running?) and start again.',
		async () => {
			const emulator = await startEmulator({
				host: '127.0.0.1',
				port,
				network: 'testnet',
				accounts: [{ apiKey: EMULATOR_API_KEY, consumerSecret }],
				deliveryCa: certificate,
			});
			running.emulator = emulator;
			return emulator;
		},
	);
}

/* ------------------------------------------------- credential & workflows */

async function listAll<T>(api: N8nApi, apiPath: string): Promise<T[]> {
	const out: T[] = [];
	let cursor: string | undefined;
	do {
		const separator = apiPath.includes('?') ? '&' : '?';
		const page = (await api.public(
			'GET',
			`${apiPath}${separator}limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
		)) as { data: T[]; nextCursor?: string | null };
		out.push(...page.data);
		cursor = page.nextCursor ?? undefined;
	} while (cursor);
	return out;
}

/** The "Stacks Hooks API" credential, pointed at this start's emulator: updated when it exists, else created. */
async function ensureCredential(api: N8nApi, emulator: Emulator, consumerSecret: string): Promise<CredentialRef> {
	const data = { apiKey: EMULATOR_API_KEY, network: 'testnet', baseUrl: emulator.url, consumerSecret };
	const credentials = await listAll<{ id: string; name: string; type: string }>(api, '/credentials');
	const existing = credentials.find((c) => c.name === CREDENTIAL_NAME && c.type === CREDENTIAL_TYPE);
	if (existing) {
		await api.public('PATCH', `/credentials/${encodeURIComponent(existing.id)}`, { data });
		console.log(`  credential "${CREDENTIAL_NAME}" (${existing.id}) kept, pointed at ${emulator.url}`);
		return { id: existing.id, name: existing.name };
	}
	const created = await api.createCredential({ name: CREDENTIAL_NAME, type: CREDENTIAL_TYPE, data });
	console.log(`  credential "${CREDENTIAL_NAME}" (${created.id}) created for ${emulator.url}`);
	return { id: created.id, name: created.name };
}

/** Each example workflow: the one of that name when it exists (left as the user made it), else imported. */
async function ensureExamples(api: N8nApi, credential: CredentialRef): Promise<Map<string, Workflow>> {
	const existing = await listAll<Workflow & { isArchived?: boolean }>(api, '/workflows');
	const byKey = new Map<string, Workflow>();
	for (const key of exampleKeys()) {
		const example = loadExample(key, credential);
		const found = existing.find((workflow) => workflow.name === example.name && !workflow.isArchived);
		if (found) {
			console.log(`  workflow "${example.name}" (${found.id}) kept`);
			byKey.set(key, found);
			continue;
		}
		const created = await api.createWorkflow(example);
		console.log(`  workflow "${example.name}" (${created.id}) imported`);
		byKey.set(key, created);
	}
	return byKey;
}

/**
 * Publishes the trigger example afresh: the emulator forgets its hooks when it
 * stops, and n8n does not register them again when it restarts, so unpublish
 * (its hook is gone already: nothing to delete) and publish (registers one).
 */
async function activateTrigger(api: N8nApi, workflowId: string): Promise<void> {
	const workflow = await api.getWorkflow(workflowId);
	if (workflow.active) await api.deactivate(workflowId);
	await api.activate(workflowId);
}

async function setUpWorkflows(n8n: N8nInstance, emulator: Emulator, consumerSecret: string): Promise<Workflow> {
	return await step(
		'Setting up the credential and the example workflows (a few seconds)',
		`Look at the end of ${path.relative(REPO, N8N_LOG)}; the trigger example must stay named as it is imported.`,
		async () => {
			const credential = await ensureCredential(n8n.api, emulator, consumerSecret);
			const workflows = await ensureExamples(n8n.api, credential);
			const trigger = workflows.get('trigger')!;
			await activateTrigger(n8n.api, trigger.id);
			const hooks = emulator.hooks(EMULATOR_API_KEY).filter((hook) => hook.status.enabled);
			if (!hooks.some((hook) => hook.definition.action.url.startsWith(n8n.webhookBaseUrl))) {
				throw new Error('the trigger example was activated, but no hook to this n8n is registered at the emulator');
			}
			console.log(`  "${trigger.name}" is active: its hook is registered at the emulator`);
			return trigger;
		},
	);
}

/* ----------------------------------------------------------------- banner */

function printBanner(n8n: N8nInstance, emulator: Emulator, trigger: Workflow): void {
	const rule = '─'.repeat(78);
	console.log(
		[
			'',
			rule,
			'  n8n with the Stacks Hooks nodes is running.',
			'',
			`  Editor:    ${n8n.baseUrl}`,
			'             (its certificate is self-signed: accept the browser\'s warning)',
			`  Log in:    ${n8n.owner.email}`,
			`  Password:  ${n8n.owner.password}`,
			'',
			`  Emulated hooks service: ${emulator.url} (API key ${EMULATOR_API_KEY}),`,
			`  used by the credential "${CREDENTIAL_NAME}". The example workflows are imported;`,
			`  "${trigger.name}" is active.`,
			'',
			'  Make the emulated chain produce STX transfers (in another terminal):',
			'',
			'      npm run emulate',
			'',
			'  then see the executions of the trigger example:',
			`  ${n8n.baseUrl}/workflow/${trigger.id}/executions`,
			'',
			'  Ctrl-C stops n8n and the emulator.',
			rule,
			'',
		].join('\n'),
	);
}

function writeRunInfo(n8n: N8nInstance, emulator: Emulator, trigger: Workflow): void {
	const info: RunInfo = {
		pid: process.pid,
		n8nUrl: n8n.baseUrl,
		emulatorOrigin: emulator.origin,
		apiKey: readN8nApiKey(),
		certificateFile: CERT_FILE,
		triggerWorkflowId: trigger.id,
	};
	fs.writeFileSync(runInfoPath(REPO), JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
}

/** The public-API key the harness keeps in the user folder (for `npm run emulate`). */
function readN8nApiKey(): string {
	try {
		return (JSON.parse(fs.readFileSync(path.join(USER_FOLDER, 'e2e-owner.json'), 'utf8')) as { apiKey?: string }).apiKey ?? '';
	} catch {
		return '';
	}
}

/* --------------------------------------------------------------- stopping */

/** Stops n8n (gracefully), the emulator, and any process this one started that is still there. */
function stopEverything(reason: string, exitCode: number): Promise<void> {
	if (running.stopping) return running.stopping;
	console.log(`\n${reason}: stopping n8n and the emulator…`);
	running.stopping = (async () => {
		try {
			await running.n8n?.stop();
			await running.emulator?.close();
		} catch (error) {
			console.error(`  while stopping: ${(error as Error).message}`);
		}
		await killDescendants();
		removeRunInfo();
		console.log('Stopped: nothing started by npm start is left running.');
		process.exit(exitCode);
	})();
	return running.stopping;
}

/** SIGTERM to every descendant still alive (e.g. an npm install interrupted mid-way), SIGKILL after 3 s. */
async function killDescendants(): Promise<void> {
	const signal = (sig: NodeJS.Signals) => {
		const others = processTree(process.pid).slice(1);
		for (const entry of others) {
			try {
				process.kill(entry.pid, sig);
			} catch {
				/* gone */
			}
		}
		return others.length;
	};
	if (signal('SIGTERM') === 0) return;
	const deadline = Date.now() + 3000;
	while (processTree(process.pid).length > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
	signal('SIGKILL');
}

function removeRunInfo(): void {
	const info = readRunInfo();
	if (info?.pid === process.pid) fs.rmSync(runInfoPath(REPO), { force: true });
}

function handleSignals(): void {
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.on(signal, () => {
			if (running.stopping) {
				console.log('Stopping at once.');
				for (const entry of processTree(process.pid).slice(1)) {
					try {
						process.kill(entry.pid, 'SIGKILL');
					} catch {
						/* gone */
					}
				}
				process.exit(130);
			}
			void stopEverything(`${signal} received`, 0);
		});
	}
	// Whoever started us (npm, a shell) went away without a signal reaching us: do not linger.
	const parent = process.ppid;
	setInterval(() => {
		if (process.ppid !== parent) void stopEverything('npm start was left by its parent process', 0);
	}, 2000).unref();
}

function watchN8n(n8n: N8nInstance): void {
	n8n.process.once('exit', (code, signal) => {
		if (running.stopping) return;
		console.error(`\nn8n exited unexpectedly (${signal ?? `code ${code}`}). See ${path.relative(REPO, N8N_LOG)}.`);
		void stopEverything('n8n is gone', 1);
	});
}

/* ------------------------------------------------------------------- main */

async function main(): Promise<void> {
	handleSignals();
	fs.mkdirSync(USER_FOLDER, { recursive: true });
	refuseSecondInstance();
	const started = Date.now();
	const { consumerSecret } = loadSettings();

	const tarball = await buildAndPack();
	await provisionHost();
	await installIntoUserFolder(tarball);

	const n8nPort = await choosePort(PREFERRED.n8n);
	const brokerPort = await choosePort(PREFERRED.broker, [n8nPort]);
	const emulatorPort = await choosePort(PREFERRED.emulator, [n8nPort, brokerPort]);
	const n8n = await startEditor(n8nPort, brokerPort);
	watchN8n(n8n);
	const emulator = await startHooksEmulator(emulatorPort, n8n.certificate, consumerSecret);
	const trigger = await setUpWorkflows(n8n, emulator, consumerSecret);

	writeRunInfo(n8n, emulator, trigger);
	console.log(`Ready in ${seconds(started)}.`);
	printBanner(n8n, emulator, trigger);
}

main().catch(async (error: unknown) => {
	if (running.stopping) return; // interrupted: the failure is the interruption's
	printFailure(error);
	await stopEverything('Set-up failed', 1);
});
