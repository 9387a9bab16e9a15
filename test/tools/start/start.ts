/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * `npm start`: a local n8n with this package installed, talking to the hooks
 * service emulator, with the example workflows imported and the trigger
 * example active. Sets up whatever is missing (n8n and Node 24 the first time),
 * prints one banner, and stops everything on Ctrl-C or SIGTERM.
 *
 * Kept between starts in .cache/ (ignored by git): n8n's user folder (owner,
 * credential, workflows, executions, its certificate), the emulator's consumer
 * secret, n8n's log.
 *
 * `npm start -- --queue` starts n8n in queue mode instead (test/support/n8n/queue.ts): Redis,
 * PostgreSQL, a main process, two webhook processes behind a load balancer and two workers,
 * with a new database each time (nothing of it is kept).
 */
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';

import { type Emulator, startEmulator } from '../../emulator';
import type { N8nApi, Workflow } from '../../support/n8n/api';
import { ensureHost, hostPaths } from '../../support/n8n/hosts/provision';
import { selectedN8n } from '../../support/n8n/hosts/versions';
import { type N8nInstance, type N8nProcess, startN8n } from '../../support/n8n/instance';
import { freePort } from '../../support/ports';
import { installPackage, packPackage } from '../../support/n8n/package';
import { killAll } from '../../support/n8n/process';
import { type QueueStack, startQueueStack } from '../../support/n8n/queue';
import { CREDENTIAL_NAME, CREDENTIAL_TYPE, type CredentialRef, EXAMPLE_SENDER, exampleKeys, loadExample } from '../../support/examples';
import { REPO_DIR } from '../../support/paths';
import { type RunInfo, runInfoPath, readRunInfo } from './run-info';

const N8N_VERSION = selectedN8n();
const EMULATOR_API_KEY = 'demo-api-key';
const PREFERRED = { n8n: 5678, broker: 5679, emulator: 3999 };

const CACHE = path.join(REPO_DIR, '.cache');
const USER_FOLDER = path.join(CACHE, 'n8n-user');
const SETTINGS_FILE = path.join(CACHE, 'stacks-hooks-start.json');
const N8N_LOG = path.join(CACHE, 'n8n.log');
const CERT_FILE = path.join(CACHE, 'n8n-cert.pem');
const relative = (file: string) => path.relative(REPO_DIR, file);

const running: { n8n?: N8nInstance; emulator?: Emulator; queue?: QueueStack; stopping?: Promise<void> } = {};

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
async function step<T>(label: string, whatToDo: string, run: () => Promise<T>): Promise<T> {
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
		console.error(`✖ ${error.step} failed:\n${message.replace(/^/gm, '    ')}`);
		console.error(`\nWhat to do: ${error.whatToDo}`);
	} else {
		console.error(`✖ npm start failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
	}
	console.error(`(n8n's own log, when it got that far: ${relative(N8N_LOG)})`);
}

/* ------------------------------------------------------------------ set-up */

/** The emulator account's consumer secret, made once and kept across starts (as a real account's secret stays until rotated). */
function consumerSecret(): string {
	try {
		const saved = JSON.parse(fs.readFileSync(SETTINGS_FILE, 'utf8')) as { consumerSecret?: string };
		if (typeof saved.consumerSecret === 'string' && saved.consumerSecret) return saved.consumerSecret;
	} catch {
		/* first start */
	}
	const settings = { consumerSecret: randomBytes(32).toString('hex') };
	fs.writeFileSync(SETTINGS_FILE, JSON.stringify(settings, null, 2) + '\n', { mode: 0o600 });
	return settings.consumerSecret;
}

function refuseSecondInstance(): void {
	const info = readRunInfo();
	if (!info || info.pid === process.pid) return;
	try {
		process.kill(info.pid, 0);
	} catch {
		return; // it is gone
	}
	throw new StepError(
		'npm start',
		new Error(`npm start is already running (pid ${info.pid}), with n8n at ${info.n8nUrl}.`),
		`Use that one, or stop it (Ctrl-C in its terminal, or kill ${info.pid}) and run npm start again.`,
	);
}

/** `preferred` when free, else any free port; never one of `taken`. */
async function choosePort(preferred: number, taken: number[] = []): Promise<number> {
	const isFree = await new Promise<boolean>((resolve) => {
		const server = net.createServer().once('error', () => resolve(false));
		server.listen(preferred, '127.0.0.1', () => server.close(() => resolve(true)));
	});
	if (isFree && !taken.includes(preferred)) return preferred;
	let port = await freePort();
	while (taken.includes(port)) port = await freePort();
	console.log(`  port ${preferred} is busy: using ${port}`);
	return port;
}

/**
 * The "Stacks Hooks API" credential, pointed at this start's emulator: updated when it exists, else created.
 * As users set it up: the API key and network only (the trigger reads the account's consumer secret).
 */
async function ensureCredential(api: N8nApi, emulator: Emulator): Promise<CredentialRef> {
	const data = { apiKey: EMULATOR_API_KEY, network: 'testnet', baseUrl: emulator.url, consumerSecret: '' };
	const credentials = await api.list<{ id: string; name: string; type: string }>('/credentials');
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

/** Each example workflow: the one of that name when it exists (left as the user made it), else imported. Returns the trigger example. */
async function ensureExamples(api: N8nApi, credential: CredentialRef): Promise<Workflow> {
	const existing = await api.list<Workflow & { isArchived?: boolean }>('/workflows');
	let trigger: Workflow | undefined;
	for (const key of exampleKeys()) {
		const example = loadExample(key, credential);
		let workflow = existing.find((candidate) => candidate.name === example.name && !candidate.isArchived);
		if (workflow) {
			console.log(`  workflow "${example.name}" (${workflow.id}) kept`);
		} else {
			workflow = await api.createWorkflow(example);
			console.log(`  workflow "${example.name}" (${workflow.id}) imported`);
		}
		if (key === 'trigger') trigger = workflow;
	}
	return trigger!;
}

/** What both modes need first: the package packed and the n8n host installed. */
async function prepare(): Promise<string> {
	const tarball = await step(
		'Building the package when its sources changed, and packing it (about 15 s)',
		'Fix the build errors shown above, then run npm start again.',
		() => packPackage(REPO_DIR),
	);
	await step(
		fs.existsSync(hostPaths().n8nBin)
			? `Checking the n8n ${N8N_VERSION} host in ${relative(hostPaths().hostDir)} (already installed)`
			: `Installing n8n ${N8N_VERSION} and its Node into ${relative(hostPaths().hostDir)} (first time only, about 3 minutes)`,
		`Check that the npm registry is reachable (npm ping). To start the host over, delete ${relative(hostPaths().hostDir)}/node_modules.`,
		() => ensureHost(undefined, (message) => console.log(`  ${message}`)),
	);
	return tarball;
}

/** Activates the trigger example afresh and checks that its hook is registered for `webhookBaseUrl`. */
async function activateTrigger(api: N8nApi, emulator: Emulator, credential: CredentialRef, webhookBaseUrl: string): Promise<Workflow> {
	const trigger = await ensureExamples(api, credential);
	// Publish afresh: the emulator forgot its hooks when it stopped, and n8n does not register
	// them again when it restarts; unpublish (nothing to delete) and publish (registers one).
	if ((await api.getWorkflow(trigger.id)).active) await api.deactivate(trigger.id);
	await api.activate(trigger.id);
	const hooks = emulator.hooks(EMULATOR_API_KEY).filter((hook) => hook.status.enabled);
	if (!hooks.some((hook) => hook.definition.action.url.startsWith(webhookBaseUrl))) {
		throw new Error('the trigger example was activated, but no hook to this n8n is registered at the emulator');
	}
	console.log(`  "${trigger.name}" is active: its hook is registered at the emulator`);
	return trigger;
}

/** An n8n process that exits while npm start is not stopping takes everything down with it. */
function stopWhenAnyExits(processes: N8nProcess[]): void {
	for (const proc of processes) {
		proc.process.once('exit', (code, signal) => {
			if (running.stopping) return;
			console.error(`\nThe n8n ${proc.role} process exited unexpectedly (${signal ?? `code ${code}`}). See ${relative(N8N_LOG)}.`);
			void stopEverything('n8n is gone', 1);
		});
	}
}

function writeRunInfo(main: N8nInstance, emulator: Emulator, trigger: Workflow): void {
	const info: RunInfo = {
		pid: process.pid,
		n8nUrl: main.baseUrl,
		emulatorOrigin: emulator.origin,
		apiKey: main.api.apiKey,
		certificateFile: CERT_FILE,
		triggerWorkflowId: trigger.id,
	};
	fs.writeFileSync(CERT_FILE, main.certificate!);
	fs.writeFileSync(runInfoPath(REPO_DIR), JSON.stringify(info, null, 2) + '\n', { mode: 0o600 });
}

async function setUp(started: number): Promise<void> {
	const secret = consumerSecret();
	const tarball = await prepare();
	await step(
		`Installing the package into n8n's user folder ${relative(USER_FOLDER)} (as n8n installs community packages, about 15 s)`,
		`Check that the npm registry is reachable; to start over, delete ${relative(USER_FOLDER)}/.n8n/nodes.`,
		async () => {
			await installPackage(USER_FOLDER, tarball);
			fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
		},
	);

	const port = await choosePort(PREFERRED.n8n);
	const brokerPort = await choosePort(PREFERRED.broker, [port]);
	const emulatorPort = await choosePort(PREFERRED.emulator, [port, brokerPort]);
	const n8n = await step(
		`Starting n8n ${N8N_VERSION} on https://127.0.0.1:${port} (about 15 s; its log goes to ${relative(N8N_LOG)})`,
		`Look at the end of ${relative(N8N_LOG)}. If the user folder is damaged, delete ${relative(USER_FOLDER)} (you lose its workflows) and start again.`,
		async () => {
			fs.writeFileSync(N8N_LOG, `---- npm start ${new Date().toISOString()} ----\n`, { flag: 'a' });
			const log = fs.createWriteStream(N8N_LOG, { flags: 'a' });
			const userFolder = USER_FOLDER;
			running.n8n = await startN8n({ userFolder, https: true, port, brokerPort, log: (line) => log.write(`${line}\n`) });
			return running.n8n;
		},
	);
	stopWhenAnyExits([n8n]);
	const emulator = await step(
		`Starting the Stacks hooks service emulator on http://127.0.0.1:${emulatorPort}`,
		'Free the port (another emulator still running?) and start again.',
		async () =>
			(running.emulator = await startEmulator({
				host: '127.0.0.1',
				port: emulatorPort,
				network: 'testnet',
				accounts: [{ apiKey: EMULATOR_API_KEY, consumerSecret: secret }],
				deliveryCa: n8n.certificate,
			})),
	);
	await storeSampleBlock(emulator);
	const trigger = await step(
		'Setting up the credential and the example workflows (a few seconds)',
		`Look at the end of ${relative(N8N_LOG)}; the trigger example must stay named as it is imported.`,
		async () => activateTrigger(n8n.api, emulator, await ensureCredential(n8n.api, emulator), n8n.webhookBaseUrl),
	);
	writeRunInfo(n8n, emulator, trigger);
	console.log(`Ready in ${seconds(started)}.`);
	printSingleBanner(n8n, emulator, trigger);
}

async function setUpQueue(started: number): Promise<void> {
	const secret = consumerSecret();
	const tarball = await prepare();
	const mainPort = await choosePort(PREFERRED.n8n);
	const emulatorPort = await choosePort(PREFERRED.emulator, [mainPort]);
	const queue = await step(
		`Starting queue mode: Redis, PostgreSQL, n8n ${N8N_VERSION} main, 2 webhook processes and 2 workers (about 60 s; the first time also installs Redis and PostgreSQL from Debian's packages; n8n's log goes to ${relative(N8N_LOG)})`,
		`Look at the end of ${relative(N8N_LOG)}. Redis and PostgreSQL come from Debian's packages: as root, apt-get install -y redis-server postgresql.`,
		async () => {
			fs.writeFileSync(N8N_LOG, `---- npm start -- --queue ${new Date().toISOString()} ----\n`, { flag: 'a' });
			const log = fs.createWriteStream(N8N_LOG, { flags: 'a' });
			running.queue = await startQueueStack({
				apiKey: EMULATOR_API_KEY,
				consumerSecret: secret,
				credentialName: CREDENTIAL_NAME,
				tarball,
				mainPort,
				emulator: { host: '127.0.0.1', port: emulatorPort, network: 'testnet' },
				log: (line) => log.write(`${line}\n`),
				provisionLog: (message) => console.log(`  ${message}`),
			});
			fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
			return running.queue;
		},
	);
	stopWhenAnyExits([queue.main, ...queue.webhooks, ...queue.workers]);
	await storeSampleBlock(queue.emu);
	const trigger = await step(
		'Importing the example workflows (a few seconds)',
		`Look at the end of ${relative(N8N_LOG)}; the trigger example must stay named as it is imported.`,
		() => activateTrigger(queue.main.api, queue.emu, queue.credential, queue.env.N8N_WEBHOOK_URL),
	);
	writeRunInfo(queue.main, queue.emu, trigger);
	console.log(`Ready in ${seconds(started)}.`);
	printQueueBanner(queue, trigger);
}

/** The block `npm start` stores for trying Sample Block (`npm run emulate` adds its blocks above it). */
const SAMPLE_BLOCK_HEIGHT = 1;

/** The contract whose prints the print example watches, as that example's trigger names it. */
function printExampleContract(): string {
	const [trigger] = loadExample('contractPrints').nodes;
	const events = (trigger.parameters as { events: { filter: Array<{ contractIdentifier: string }> } }).events;
	return events.filter[0].contractIdentifier;
}

/**
 * Stores a block to try Sample Block with: two prints of the print example's contract, one of them in
 * a failed transaction, and an STX transfer from the examples' sender. Stored before any hook is
 * active, so it is delivered to none.
 */
async function storeSampleBlock(emulator: Emulator): Promise<void> {
	const contract = printExampleContract();
	await emulator.injectBlock({
		height: SAMPLE_BLOCK_HEIGHT,
		transactions: [
			{ kind: 'contract_log', sender: EXAMPLE_SENDER, contractIdentifier: contract, value: '(tuple (event "mint") (amount u100))' },
			{ kind: 'stx_transfer', sender: EXAMPLE_SENDER, recipient: 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG', amount: 1_500_000 },
			{ kind: 'contract_log', sender: EXAMPLE_SENDER, contractIdentifier: contract, value: '(tuple (event "burn") (amount u40))', status: 'abort_by_response' },
		],
	});
}

/** The banner's lines on Sample Block. */
const sampleBlockLines = (): string[] => [
	'',
	`  Try a test event in seconds: open "${loadExample('contractPrints').name}",`,
	`  type ${SAMPLE_BLOCK_HEIGHT} into its trigger's Sample Block and click "Execute step": block ${SAMPLE_BLOCK_HEIGHT}`,
	`  holds two prints of ${printExampleContract()}.`,
];

/** The banner: what runs where (`body`), then how to make the chain produce events and where to see them. */
function printBanner(title: string, main: N8nInstance, body: string[], trigger: Workflow, stopping: string): void {
	const rule = '─'.repeat(78);
	console.log(
		[
			'',
			rule,
			`  ${title}`,
			'',
			...body,
			'',
			'  Make the emulated chain produce STX transfers (in another terminal):',
			'',
			'      npm run emulate',
			'',
			'  then see the executions of the trigger example:',
			`  ${main.baseUrl}/workflow/${trigger.id}/executions`,
			'',
			`  ${stopping}`,
			rule,
			'',
		].join('\n'),
	);
}

/** Where to log in, as both banners say it. */
const logIn = (main: N8nInstance, label: string, after = '') => [
	`  ${label}${main.baseUrl}${after}`,
	'             (its certificate is self-signed: accept the browser\'s warning)',
	`  Log in:    ${main.owner.email}`,
	`  Password:  ${main.owner.password}`,
];

function printSingleBanner(n8n: N8nInstance, emulator: Emulator, trigger: Workflow): void {
	printBanner('n8n with the Stacks Hooks nodes is running.', n8n, [
		...logIn(n8n, 'Editor:    '),
		'',
		`  Emulated hooks service: ${emulator.url} (API key ${EMULATOR_API_KEY}),`,
		`  used by the credential "${CREDENTIAL_NAME}". The example workflows are imported;`,
		`  "${trigger.name}" is active.`,
		...sampleBlockLines(),
	], trigger, 'Ctrl-C stops n8n and the emulator.');
}

function printQueueBanner(queue: QueueStack, trigger: Workflow): void {
	const { main, emu } = queue;
	printBanner('n8n in queue mode with the Stacks Hooks nodes is running.', main, [
		...logIn(main, 'Editor, API, activation:  ', `   (main process, pid ${main.process.pid})`),
		'',
		`  Webhooks:                 ${queue.env.N8N_WEBHOOK_URL}   (load balancer: /webhook/ in turn to`,
		'                            the webhook processes, /webhook-test/ to the main process)',
		...queue.webhooks.map((proc, i) => `    webhook process ${i + 1}:      ${proc.baseUrl}   (pid ${proc.process.pid})`),
		...queue.workers.map((proc, i) => `  Executions, worker ${i + 1}:   health on ${proc.baseUrl}/healthz   (pid ${proc.process.pid})`),
		`  Redis:                    127.0.0.1:${queue.redis.port}   (the job queue)`,
		`  PostgreSQL:               127.0.0.1:${queue.postgres.port}, database ${queue.postgres.database}, user ${queue.postgres.user}`,
		'             (new each start: workflows and executions are not kept)',
		'',
		`  Emulated hooks service: ${emu.url} (API key ${EMULATOR_API_KEY}),`,
		`  used by the credential "${CREDENTIAL_NAME}". "${trigger.name}" is active.`,
		...sampleBlockLines(),
	], trigger, 'Ctrl-C stops every process.');
}

/* ---------------------------------------------------------------- stopping */

/** Stops n8n (gracefully) and the emulator, then kills whatever else this process started (e.g. an npm install mid-way). */
function stopEverything(reason: string, exitCode: number): Promise<void> {
	if (running.stopping) return running.stopping;
	console.log(`\n${reason}: stopping n8n and the emulator…`);
	running.stopping = (async () => {
		try {
			await running.n8n?.stop();
			await running.emulator?.close();
			await running.queue?.close();
		} catch (error) {
			console.error(`  while stopping: ${(error as Error).message}`);
		}
		killAll();
		if (readRunInfo()?.pid === process.pid) fs.rmSync(runInfoPath(REPO_DIR), { force: true });
		console.log('Stopped: nothing started by npm start is left running.');
		process.exit(exitCode);
	})();
	return running.stopping;
}

function handleSignals(): void {
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.on(signal, () => {
			if (!running.stopping) return void stopEverything(`${signal} received`, 0);
			console.log('Stopping at once.');
			killAll();
			process.exit(130);
		});
	}
	// Whoever started us (npm, a shell) went away without a signal reaching us: do not linger.
	const parent = process.ppid;
	setInterval(() => process.ppid !== parent && void stopEverything('npm start was left by its parent process', 0), 2000).unref();
}

async function main(): Promise<void> {
	handleSignals();
	fs.mkdirSync(USER_FOLDER, { recursive: true });
	refuseSecondInstance();
	if (process.argv.includes('--queue')) await setUpQueue(Date.now());
	else await setUp(Date.now());
}

main().catch(async (error: unknown) => {
	if (running.stopping) return; // interrupted: the failure is the interruption's
	printFailure(error);
	await stopEverything('Set-up failed', 1);
});
