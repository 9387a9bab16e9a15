/**
 * Provisions and drives a real n8n (2.41.1 on Node 24, from test/host) for the end-to-end
 * tests, `npm start` and the benchmarks: pack and install the package as a community
 * package, start/stop/restart n8n headless and offline (optionally over HTTPS), set up the
 * owner and a public-API key, and talk to the public API.
 *
 * Every process started here is tracked; stop() ends it, and a process 'exit' handler (plus
 * SIGINT/SIGTERM/SIGHUP handlers when nobody else handles them) kills whatever is left, with
 * its children (n8n's task runners), so a crashed run leaves nothing behind.
 */
import { ChildProcess, spawn, spawnSync } from 'child_process';
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as vm from 'vm';

import { ensureHost, HostPaths, node24Env } from './host/provision';

export { REPO_DIR } from '../paths';
import { REPO_DIR } from '../paths';

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                               */
/* ------------------------------------------------------------------------------------------ */

/** A TCP port free on 127.0.0.1 at the time of the call. */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

/** Rejects with `message` (or a default) when `promise` has not settled within `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, message?: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(message ?? `timed out after ${ms} ms`)), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Keeps the last `max` lines of a stream of text; calls `onLine` for each complete line. */
class LineRing {
	private readonly lines: string[] = [];
	private partial = '';
	private readonly watchers = new Set<(line: string) => void>();
	constructor(
		private readonly max: number,
		private readonly onLine?: (line: string) => void,
	) {}

	write(chunk: Buffer | string): void {
		const parts = (this.partial + chunk.toString()).split(/\r?\n/);
		this.partial = parts.pop() ?? '';
		for (const line of parts) this.add(line);
	}

	flush(): void {
		if (this.partial) this.add(this.partial);
		this.partial = '';
	}

	add(line: string): void {
		this.lines.push(line);
		if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
		for (const watcher of this.watchers) watcher(line);
		try {
			this.onLine?.(line);
		} catch {
			/* a logging callback must not break the harness */
		}
	}

	tail(n = this.max): string {
		return this.lines.slice(-n).join('\n');
	}

	/** From now on, whether a line containing `text` went by. */
	watch(text: string): { seen: () => boolean; dispose: () => void } {
		let seen = false;
		const watcher = (line: string) => {
			if (line.includes(text)) seen = true;
		};
		this.watchers.add(watcher);
		return { seen: () => seen, dispose: () => this.watchers.delete(watcher) };
	}
}

/* ------------------------------------------------------------------------------------------ */
/* Process tracking                                                                            */
/* ------------------------------------------------------------------------------------------ */

export interface ProcEntry {
	pid: number;
	start: string;
}

/** The process and its descendants, each with its start time (to tell a reused pid apart). Linux /proc. */
export function processTree(rootPid: number): ProcEntry[] {
	const byParent = new Map<number, ProcEntry[]>();
	let root: ProcEntry | undefined;
	let names: string[] = [];
	try {
		names = fs.readdirSync('/proc');
	} catch {
		return [];
	}
	for (const name of names) {
		if (!/^\d+$/.test(name)) continue;
		let stat: string;
		try {
			stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
		} catch {
			continue;
		}
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		const entry = { pid: Number(name), start: fields[19] ?? '' };
		const ppid = Number(fields[1]);
		if (entry.pid === rootPid) root = entry;
		const siblings = byParent.get(ppid) ?? [];
		siblings.push(entry);
		byParent.set(ppid, siblings);
	}
	if (!root) return [];
	const out: ProcEntry[] = [];
	const queue = [root];
	while (queue.length) {
		const entry = queue.shift()!;
		out.push(entry);
		queue.push(...(byParent.get(entry.pid) ?? []));
	}
	return out;
}

function startTime(pid: number): string | undefined {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
	} catch {
		return undefined;
	}
}

/** Sends `signal` to each entry still alive as the same process. */
function signalEntries(entries: ProcEntry[], signal: NodeJS.Signals): void {
	for (const entry of entries) {
		if (startTime(entry.pid) !== entry.start) continue;
		try {
			process.kill(entry.pid, signal);
		} catch {
			/* already gone */
		}
	}
}

/** Whether a pid names a live process (zombies count as gone). */
export function isProcessAlive(pid: number): boolean {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
		return state !== 'Z' && state !== 'X';
	} catch {
		try {
			process.kill(pid, 0);
			return true;
		} catch {
			return false;
		}
	}
}

interface Tracked {
	child: ChildProcess;
	/** The last snapshot of its process tree (refreshed at readiness and at stop). */
	tree: ProcEntry[];
}

const tracked = new Set<Tracked>();
/** Descendants of tracked processes that already exited (e.g. task runners of a crashed n8n). */
let orphans: ProcEntry[] = [];
let handlersInstalled = false;

/**
 * The real `process`: inside jest, `process` is a copy whose 'exit' and signal listeners
 * never fire; the main context's global still holds the real one.
 */
function realProcess(): NodeJS.Process {
	try {
		const candidate = vm.runInThisContext('typeof process === "object" ? process : undefined') as
			| NodeJS.Process
			| undefined;
		if (candidate && typeof candidate.on === 'function' && candidate.pid === process.pid) return candidate;
	} catch {
		/* fall back */
	}
	return process;
}

function killAllTrackedSync(): void {
	for (const item of tracked) {
		const pid = item.child.pid;
		const entries = pid ? [...processTree(pid), ...item.tree] : item.tree;
		signalEntries(entries, 'SIGKILL');
	}
	tracked.clear();
	signalEntries(orphans, 'SIGKILL');
	orphans = [];
	for (const dir of tempDirs) {
		try {
			fs.rmSync(dir, { recursive: true, force: true });
		} catch {
			/* best effort */
		}
	}
	tempDirs.clear();
}

/** Temporary folders (packed tarballs) removed when this process exits. */
const tempDirs = new Set<string>();

function removeOnExit(dir: string): void {
	installExitHandlers();
	tempDirs.add(dir);
}

function installExitHandlers(): void {
	if (handlersInstalled) return;
	handlersInstalled = true;
	const proc = realProcess();
	proc.on('exit', killAllTrackedSync);
	const signals: Array<[NodeJS.Signals, number]> = [
		['SIGINT', 2],
		['SIGTERM', 15],
		['SIGHUP', 1],
	];
	for (const [signal, number] of signals) {
		const handler = () => {
			// Someone else handles this signal (e.g. a demo that stops n8n gracefully): leave it to
			// them; the 'exit' handler still kills leftovers.
			if (proc.listenerCount(signal) > 1) return;
			killAllTrackedSync();
			proc.exit(128 + number);
		};
		proc.on(signal, handler);
	}
}

function track(child: ChildProcess): Tracked {
	installExitHandlers();
	const item: Tracked = { child, tree: child.pid ? [{ pid: child.pid, start: startTime(child.pid) ?? '' }] : [] };
	tracked.add(item);
	child.once('exit', () => {
		// Children it left behind (task runners) go with it, after a moment to end on their own.
		const left = item.tree.slice(1);
		orphans.push(...left);
		setTimeout(() => {
			signalEntries(left, 'SIGKILL');
			orphans = orphans.filter((e) => !left.includes(e));
		}, 2000).unref();
		tracked.delete(item);
	});
	return item;
}

function refreshTree(item: Tracked): void {
	const pid = item.child.pid;
	if (!pid || hasExited(item.child)) return;
	const tree = processTree(pid);
	if (!tree.length) return;
	const key = (e: ProcEntry) => `${e.pid}:${e.start}`;
	const current = new Set(tree.map(key));
	// The root first, then every process ever seen in its tree.
	item.tree = [...tree, ...item.tree.filter((e) => !current.has(key(e)))];
}

function hasExited(child: ChildProcess): boolean {
	return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child: ChildProcess): Promise<void> {
	if (hasExited(child)) return Promise.resolve();
	return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL of the whole tree after `graceMs`; resolves once the process exited. */
async function terminate(item: Tracked, graceMs: number): Promise<void> {
	const { child } = item;
	refreshTree(item);
	if (!hasExited(child)) {
		child.kill('SIGTERM');
		const exited = await new Promise<boolean>((resolve) => {
			if (hasExited(child)) return resolve(true);
			const timer = setTimeout(() => resolve(false), graceMs);
			child.once('exit', () => {
				clearTimeout(timer);
				resolve(true);
			});
		});
		if (!exited) {
			refreshTree(item);
			signalEntries(item.tree, 'SIGKILL');
			await waitForExit(child);
		}
	}
	// Task runners that outlived n8n.
	const deadline = Date.now() + 3000;
	while (
		item.tree.slice(1).some((e) => startTime(e.pid) === e.start && isProcessAlive(e.pid)) &&
		Date.now() < deadline
	) {
		await sleep(100);
	}
	signalEntries(item.tree.slice(1), 'SIGKILL');
	tracked.delete(item);
}

/* ------------------------------------------------------------------------------------------ */
/* Package: pack and install like n8n installs community packages                              */
/* ------------------------------------------------------------------------------------------ */

interface CommandResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

function runCommand(
	cmd: string,
	args: string[],
	options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; log?: (line: string) => void },
): Promise<CommandResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(cmd, args, {
			cwd: options.cwd,
			env: options.env ?? process.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const item = track(child);
		let stdout = '';
		let stderr = '';
		const out = new LineRing(10_000, options.log);
		child.stdout!.on('data', (chunk: Buffer) => {
			stdout += chunk.toString();
			out.write(chunk);
		});
		child.stderr!.on('data', (chunk: Buffer) => {
			stderr += chunk.toString();
			out.write(chunk);
		});
		const timer = options.timeoutMs
			? setTimeout(() => {
					refreshTree(item);
					signalEntries(item.tree, 'SIGKILL');
				}, options.timeoutMs)
			: undefined;
		child.on('error', (error) => {
			if (timer) clearTimeout(timer);
			reject(error);
		});
		child.on('close', (code, signal) => {
			if (timer) clearTimeout(timer);
			out.flush();
			resolve({ code, signal, stdout, stderr });
		});
	});
}

function commandError(what: string, result: CommandResult, hint: string): Error {
	const tail = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-40).join('\n');
	return new Error(
		`${what} failed with ${result.signal ? `signal ${result.signal}` : `exit code ${result.code}`}.\n--- last lines ---\n${tail}\n--- end ---\n${hint}`,
	);
}

/** npm's lifecycle variables (from `npm test`) must not steer the npm commands run here. */
function envWithoutNpm(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(process.env)) {
		if (!/^npm_/i.test(key)) env[key] = value;
	}
	return env;
}

const packed = new Map<string, Promise<string>>();

/** Every file under `target` (a file or a folder; nothing when missing), node_modules excluded. */
function filesUnder(target: string): string[] {
	let stat: fs.Stats;
	try {
		stat = fs.statSync(target);
	} catch {
		return [];
	}
	if (!stat.isDirectory()) return [target];
	return fs
		.readdirSync(target)
		.filter((name) => name !== 'node_modules')
		.flatMap((name) => filesUnder(path.join(target, name)));
}

/**
 * Whether `<dir>/dist` already holds a build of the current sources (every built .js newer than
 * every source file). packPackage then skips `npm run build`, so suites run in parallel after
 * `npm test`'s build do not clean and rebuild dist/ under each other's (and package.test's) feet.
 */
function buildIsFresh(dir: string): boolean {
	const built = filesUnder(path.join(dir, 'dist')).filter((file) => file.endsWith('.js'));
	if (built.length === 0) return false;
	const mtime = (file: string) => fs.statSync(file).mtimeMs;
	const oldestBuilt = Math.min(...built.map(mtime));
	const sources = ['nodes', 'credentials', 'package.json', 'tsconfig.json', 'gulpfile.js', 'index.js'].flatMap(
		(entry) => filesUnder(path.join(dir, entry)),
	);
	return sources.every((file) => mtime(file) <= oldestBuilt);
}

/**
 * `npm run build` (unless dist/ is up to date), then `npm pack` of the package in `dir` (default: this repository) into a
 * temporary folder. Returns the tarball's absolute path. Cached per process and folder.
 */
export function packPackage(dir: string = REPO_DIR, log?: (line: string) => void): Promise<string> {
	const key = path.resolve(dir);
	let promise = packed.get(key);
	if (!promise) {
		promise = (async () => {
			const env = envWithoutNpm();
			if (!buildIsFresh(key)) {
				const build = await runCommand('npm', ['run', 'build'], { cwd: key, env, log, timeoutMs: 5 * 60_000 });
				if (build.code !== 0) throw commandError(`\`npm run build\` in ${key}`, build, 'Fix the build errors above.');
			}
			const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-pack-'));
			removeOnExit(dest);
			// The build just ran: skip the prepack script (another build).
			const pack = await runCommand('npm', ['pack', '--ignore-scripts', '--pack-destination', dest], {
				cwd: key,
				env,
				log,
				timeoutMs: 2 * 60_000,
			});
			if (pack.code !== 0) throw commandError(`\`npm pack\` in ${key}`, pack, 'See the output above.');
			const tarballs = fs.readdirSync(dest).filter((f) => f.endsWith('.tgz'));
			if (tarballs.length !== 1) throw new Error(`npm pack left ${tarballs.length} tarballs in ${dest}`);
			return path.join(dest, tarballs[0]);
		})();
		promise.catch(() => packed.delete(key));
		packed.set(key, promise);
	}
	return promise;
}

/**
 * Installs a package tarball the way n8n installs community packages: into
 * `<userFolder>/.n8n/nodes/` (an npm project, created if missing) with
 * `npm i --omit=peer --legacy-peer-deps --ignore-scripts <tgz>`. n8n loads it at its next start.
 */
export async function installPackage(userFolder: string, tarball: string, log?: (line: string) => void): Promise<void> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const pkgJson = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(pkgJson)) {
		fs.writeFileSync(
			pkgJson,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2) + '\n',
		);
	}
	const result = await runCommand(
		'npm',
		['i', '--omit=peer', '--legacy-peer-deps', '--ignore-scripts', '--no-audit', '--no-fund', path.resolve(tarball)],
		{ cwd: nodesDir, env: envWithoutNpm(), log, timeoutMs: 5 * 60_000 },
	);
	if (result.code !== 0) {
		throw commandError(
			`npm i ${tarball} in ${nodesDir}`,
			result,
			'Check the tarball and that the npm registry is reachable.',
		);
	}
}

/* ------------------------------------------------------------------------------------------ */
/* TLS                                                                                         */
/* ------------------------------------------------------------------------------------------ */

export interface TlsPair {
	key: string;
	cert: string;
	keyPath: string;
	certPath: string;
}

/**
 * A self-signed certificate for 127.0.0.1, ::1 and localhost (CA:TRUE, so it can serve as its
 * own trust anchor in a client's `ca`), written to `<dir>/key.pem` and `<dir>/cert.pem`; reused
 * when both already exist. Needs the `openssl` command.
 */
export function selfSignedPair(dir: string): TlsPair {
	const keyPath = path.join(dir, 'key.pem');
	const certPath = path.join(dir, 'cert.pem');
	if (!fs.existsSync(keyPath) || !fs.existsSync(certPath)) {
		fs.mkdirSync(dir, { recursive: true });
		const configPath = path.join(dir, 'openssl.cnf');
		fs.writeFileSync(
			configPath,
			[
				'[req]',
				'distinguished_name = dn',
				'x509_extensions = v3',
				'prompt = no',
				'[dn]',
				'CN = localhost',
				'O = n8n-nodes-stacks-hooks tests',
				'[v3]',
				'basicConstraints = critical,CA:TRUE',
				'keyUsage = critical,digitalSignature,keyEncipherment,keyCertSign',
				'extendedKeyUsage = serverAuth',
				'subjectKeyIdentifier = hash',
				'subjectAltName = IP:127.0.0.1,IP:::1,DNS:localhost',
				'',
			].join('\n'),
		);
		const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '3650'];
		args.push('-keyout', keyPath, '-out', certPath, '-config', configPath);
		const result = spawnSync('openssl', args, { encoding: 'utf8', timeout: 60_000 });
		if (result.error || result.status !== 0) {
			const missing = (result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
			throw new Error(
				missing
					? 'Generating a self-signed certificate for n8n over HTTPS needs the `openssl` command, which is not installed. ' +
						'Install it (apt-get install openssl) or pass `https: { key, cert }` with a PEM pair of your own.'
					: `openssl could not generate a self-signed certificate (exit ${result.status}):\n${result.stderr}`,
			);
		}
		fs.chmodSync(keyPath, 0o600);
	}
	return { key: fs.readFileSync(keyPath, 'utf8'), cert: fs.readFileSync(certPath, 'utf8'), keyPath, certPath };
}

function resolveTls(
	userFolder: string,
	option: StartOptions['https'],
): { pair: TlsPair; generated: boolean } | undefined {
	if (!option) return undefined;
	const dir = path.join(userFolder, 'e2e-tls');
	if (option === true) return { pair: selfSignedPair(dir), generated: true };
	const isPem = (s: string) => s.includes('-----BEGIN');
	const keyPath = isPem(option.key) ? path.join(dir, 'given-key.pem') : path.resolve(option.key);
	const certPath = isPem(option.cert) ? path.join(dir, 'given-cert.pem') : path.resolve(option.cert);
	if (isPem(option.key) || isPem(option.cert)) fs.mkdirSync(dir, { recursive: true });
	if (isPem(option.key)) fs.writeFileSync(keyPath, option.key, { mode: 0o600 });
	if (isPem(option.cert)) fs.writeFileSync(certPath, option.cert);
	return {
		pair: { key: fs.readFileSync(keyPath, 'utf8'), cert: fs.readFileSync(certPath, 'utf8'), keyPath, certPath },
		generated: false,
	};
}

/* ------------------------------------------------------------------------------------------ */
/* HTTP                                                                                        */
/* ------------------------------------------------------------------------------------------ */

export interface HttpResponse {
	status: number;
	headers: http.IncomingHttpHeaders;
	text: string;
	/** The body parsed as JSON, when it is JSON. */
	json?: unknown;
}

export interface HttpOptions {
	method?: string;
	headers?: Record<string, string>;
	/** An object is sent as JSON; a string or Buffer as is. */
	body?: unknown;
	timeoutMs?: number;
	/** TLS options for https URLs (e.g. `{ ca }` or `{ rejectUnauthorized: false }`), scoped to this request. */
	tls?: https.RequestOptions;
}

/** One HTTP(S) request with node's http/https (no global TLS settings touched). */
export function httpRequest(url: string, options: HttpOptions = {}): Promise<HttpResponse> {
	const target = new URL(url);
	const headers: Record<string, string> = { ...(options.headers ?? {}) };
	let payload: Buffer | undefined;
	if (options.body !== undefined) {
		if (typeof options.body === 'string' || Buffer.isBuffer(options.body)) {
			payload = Buffer.from(options.body);
		} else {
			payload = Buffer.from(JSON.stringify(options.body));
			if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
				headers['content-type'] = 'application/json';
			}
		}
		headers['content-length'] = String(payload.length);
	}
	const isHttps = target.protocol === 'https:';
	const requestOptions: https.RequestOptions = {
		method: options.method ?? (payload ? 'POST' : 'GET'),
		headers,
		agent: false,
		...(isHttps ? (options.tls ?? {}) : {}),
	};
	return new Promise((resolve, reject) => {
		const req = (isHttps ? https : http).request(target, requestOptions, (res) => {
			const chunks: Buffer[] = [];
			res.on('data', (chunk: Buffer) => chunks.push(chunk));
			res.on('error', reject);
			res.on('end', () => {
				const text = Buffer.concat(chunks).toString('utf8');
				let json: unknown;
				if (text && /json/i.test(String(res.headers['content-type'] ?? ''))) {
					try {
						json = JSON.parse(text);
					} catch {
						/* not JSON after all */
					}
				}
				resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
			});
		});
		req.setTimeout(options.timeoutMs ?? 30_000, () =>
			req.destroy(new Error(`${requestOptions.method} ${url}: no answer in time`)),
		);
		req.on('error', reject);
		if (payload) req.write(payload);
		req.end();
	});
}

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

/* ------------------------------------------------------------------------------------------ */
/* Public API                                                                                  */
/* ------------------------------------------------------------------------------------------ */

export type ExecutionStatus = 'canceled' | 'crashed' | 'error' | 'new' | 'running' | 'success' | 'unknown' | 'waiting';

/** An execution as the public API returns it (`data` only with includeData). */
export interface Execution {
	id: string;
	finished: boolean;
	mode: string;
	status: ExecutionStatus;
	startedAt: string;
	stoppedAt: string | null;
	workflowId: string;
	retryOf?: string | null;
	data?: {
		resultData?: {
			runData?: Record<
				string,
				Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> }; error?: unknown }>
			>;
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
	staticData?: unknown;
	pinData?: Record<string, unknown>;
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
			.filter((t) => t.status === 'failed')
			.map((t) => `node ${t.nodeId}: ${t.errorMessage ?? '(no message)'}`);
		super(`publishing workflow ${workflowId} ended "${publication.status}": ${failures.join('; ')}`);
		this.name = 'N8nPublicationError';
	}
}

export interface N8nApi {
	/** `POST /api/v1/credentials`; returns the created credential (id, name, type, ...). */
	createCredential(credential: {
		name: string;
		type: string;
		data: Record<string, unknown>;
	}): Promise<{ id: string; name: string; type: string; [key: string]: unknown }>;
	/** `DELETE /api/v1/credentials/{id}`. */
	deleteCredential(id: string): Promise<void>;
	/** `POST /api/v1/workflows`; read-only fields (id, active, tags, ...) are dropped, `settings` defaults to {executionOrder:'v1'}. */
	createWorkflow(workflow: WorkflowJson): Promise<Workflow>;
	/**
	 * `POST /api/v1/workflows/{id}/activate` (n8n 2.x: publish). n8n 2.41 publishes through an
	 * outbox, after the answer: unless `wait: false`, this waits until the publication settled
	 * (trigger `checkExists`/`create` ran, webhooks registered) and throws N8nPublicationError when
	 * a trigger failed to activate. Returns the workflow as it then is.
	 */
	activate(id: string, options?: { wait?: boolean; timeoutMs?: number }): Promise<Workflow>;
	/** `POST /api/v1/workflows/{id}/deactivate` (n8n 2.x: unpublish); waits until the trigger's `delete` ran (unless `wait: false`). */
	deactivate(id: string, options?: { wait?: boolean; timeoutMs?: number }): Promise<Workflow>;
	/** `DELETE /api/v1/workflows/{id}`; waits until an unpublication it caused settled. */
	deleteWorkflow(id: string): Promise<void>;
	getWorkflow(id: string): Promise<Workflow>;
	/** `PUT /api/v1/workflows/{id}` (same sanitising as createWorkflow); on a published workflow this republishes, and it waits for that. */
	updateWorkflow(id: string, workflow: WorkflowJson): Promise<Workflow>;
	/** n8n's publication status of a workflow (`GET /rest/workflows/{id}/publication-status`). */
	publicationStatus(id: string): Promise<PublicationStatus>;
	/** Polls publicationStatus until it is no longer `in_progress` (default timeout 30 s); returns it. */
	waitForPublication(id: string, options?: { timeoutMs?: number }): Promise<PublicationStatus>;
	/** All executions matching the filter (follows nextCursor), newest first as n8n lists them. */
	executions(filter?: { workflowId?: string; includeData?: boolean; status?: ExecutionStatus }): Promise<Execution[]>;
	/** `GET /api/v1/executions/{id}`. */
	getExecution(id: string, includeData?: boolean): Promise<Execution>;
	/**
	 * Polls until the workflow has at least `count` finished executions (any status but
	 * new/running/waiting); returns them oldest first, with data. Throws on timeout (default 30 s).
	 */
	waitForExecutions(
		workflowId: string,
		count: number,
		options?: { timeoutMs?: number; pollMs?: number },
	): Promise<Execution[]>;
	/** Any public-API call: `public('GET', '/workflows?limit=1')` → parsed JSON. Throws N8nHttpError on status >= 400. */
	public(method: string, apiPath: string, body?: unknown): Promise<unknown>;
	/**
	 * The internal REST API (`/rest/...`) as the owner, with the session cookie and browser-id
	 * (logs in when needed). `path` may be given with or without the `/rest` prefix. Returns the
	 * parsed JSON (n8n wraps most answers in `{ data }`). Throws N8nHttpError on status >= 400.
	 */
	rest(method: string, restPath: string, body?: unknown): Promise<unknown>;
}

export interface OwnerState {
	email: string;
	password: string;
	apiKey: string;
	encryptionKey: string;
}

export interface StartOptions {
	/** n8n's N8N_USER_FOLDER (n8n keeps its data in `<userFolder>/.n8n`). Default: a new temp folder. */
	userFolder?: string;
	/** Default: a free port. */
	port?: number;
	/** The task-runner broker's port. Default: a free port. */
	brokerPort?: number;
	/** Serve HTTPS: true = a self-signed pair for 127.0.0.1/localhost made in the user folder; or PEM texts or file paths. */
	https?: { key: string; cert: string } | boolean;
	/** Override the public webhook base URL (N8N_WEBHOOK_URL). Default: `<baseUrl>/`. */
	webhookUrl?: string;
	/** Extra environment for n8n (wins over the defaults). */
	env?: Record<string, string>;
	/** Each line n8n prints (stdout and stderr). */
	log?: (line: string) => void;
	/** How long to wait for readiness. Default 60 s. */
	readyTimeoutMs?: number;
	/** Provisioning progress messages. Default: console.log. */
	provisionLog?: (msg: string) => void;
}

export interface N8nInstance {
	/** e.g. `https://127.0.0.1:40123` (no trailing slash). */
	readonly baseUrl: string;
	/** The N8N_WEBHOOK_URL given to n8n, with a trailing slash, e.g. `https://127.0.0.1:40123/`. */
	readonly webhookBaseUrl: string;
	readonly port: number;
	readonly brokerPort: number;
	readonly userFolder: string;
	/** The running n8n process (a new one after restart()). */
	readonly process: ChildProcess;
	/** The environment n8n runs with (without the inherited PATH & co.). */
	readonly env: Record<string, string>;
	/** The server's certificate (PEM) when HTTPS; usable as `ca` when it was generated. */
	readonly certificate?: string;
	/** TLS options for clients of this instance: `{ ca }` for a generated pair, else `{ rejectUnauthorized: false }`. */
	readonly tlsOptions: https.RequestOptions;
	readonly owner: { email: string; password: string };
	readonly api: N8nApi;
	readonly host: HostPaths;
	/** SIGTERM, then SIGKILL after 10 s; resolves once it exited. Idempotent. */
	stop(): Promise<void>;
	/** stop(), then start again with the same user folder, ports and environment; resolves when ready. */
	restart(): Promise<void>;
	/** The last lines n8n printed (stdout and stderr), across restarts. */
	logs(): string;
	/** A request to this instance: a path (`/webhook/x`) or a full URL; TLS handled. */
	request(pathOrUrl: string, options?: HttpOptions): Promise<HttpResponse>;
	/** `<webhookBaseUrl>webhook/<path>` (the production webhook URL of a node whose path is `path`). */
	webhookUrl(webhookPath: string): string;
}

/* ------------------------------------------------------------------------------------------ */
/* Starting n8n                                                                                */
/* ------------------------------------------------------------------------------------------ */

const STATE_FILE = 'e2e-owner.json';
const LOG_LINES = 5000;
const STOP_GRACE_MS = 10_000;

function readState(userFolder: string): Partial<OwnerState> {
	try {
		return JSON.parse(fs.readFileSync(path.join(userFolder, STATE_FILE), 'utf8')) as Partial<OwnerState>;
	} catch {
		return {};
	}
}

function writeState(userFolder: string, state: Partial<OwnerState>): void {
	fs.writeFileSync(path.join(userFolder, STATE_FILE), JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
}

/** The encryption key of this user folder: n8n's own config if it exists, else ours, else a new one. */
function encryptionKeyFor(userFolder: string): string {
	try {
		const config = JSON.parse(fs.readFileSync(path.join(userFolder, '.n8n', 'config'), 'utf8')) as {
			encryptionKey?: string;
		};
		if (config.encryptionKey) return config.encryptionKey;
	} catch {
		/* new folder */
	}
	const state = readState(userFolder);
	if (state.encryptionKey) return state.encryptionKey;
	const key = randomBytes(24).toString('base64url');
	writeState(userFolder, { ...state, encryptionKey: key });
	return key;
}

/** Inherited variables that would change how n8n runs are not passed on. */
function inheritedEnv(): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(node24Env(process.env))) {
		if (value === undefined) continue;
		if (/^(N8N_|DB_|QUEUE_|EXECUTIONS_|GENERIC_|NODE_FUNCTION_)/.test(key)) continue;
		// NODE_ENV=test (set by jest) makes n8n exit at start without a word.
		const dropped = ['WEBHOOK_URL', 'NODE_ENV', 'JEST_WORKER_ID', 'NODE_OPTIONS', 'NODE_TLS_REJECT_UNAUTHORIZED'];
		if (dropped.includes(key) || key === 'npm_config_nodedir') continue;
		out[key] = value;
	}
	return out;
}

/** Starts n8n (provisioning test/host first when needed) and resolves when it is ready and has an owner and an API key. */
export async function startN8n(opts: StartOptions = {}): Promise<N8nInstance> {
	const host = await ensureHost(opts.provisionLog);
	const userFolder = path.resolve(opts.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-e2e-')));
	fs.mkdirSync(userFolder, { recursive: true });
	const port = opts.port ?? (await freePort());
	let brokerPort = opts.brokerPort ?? (await freePort());
	while (brokerPort === port) brokerPort = await freePort();
	const tls = resolveTls(userFolder, opts.https);
	const protocol = tls ? 'https' : 'http';
	const baseUrl = `${protocol}://127.0.0.1:${port}`;
	let webhookBaseUrl = opts.webhookUrl ?? `${baseUrl}/`;
	if (!webhookBaseUrl.endsWith('/')) webhookBaseUrl += '/';

	const env: Record<string, string> = {
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: encryptionKeyFor(userFolder),
		DB_TYPE: 'sqlite',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_PROTOCOL: protocol,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		// The modern name of WEBHOOK_URL (which n8n 2.41 flags as deprecated): base of production and test webhooks.
		N8N_WEBHOOK_URL: webhookBaseUrl,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_HIRING_BANNER_ENABLED: 'false',
		...(tls ? { N8N_SSL_KEY: tls.pair.keyPath, N8N_SSL_CERT: tls.pair.certPath } : {}),
		...(opts.env ?? {}),
	};
	const tlsOptions: https.RequestOptions = tls?.generated ? { ca: tls.pair.cert } : { rejectUnauthorized: false };

	const ring = new LineRing(LOG_LINES, opts.log);
	let current: Tracked | undefined;
	let stopping: Promise<void> | undefined;

	const launch = async (): Promise<void> => {
		const child = spawn(host.node24, [host.n8nBin, 'start'], {
			cwd: userFolder,
			env: { ...inheritedEnv(), ...env },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const item = track(child);
		current = item;
		stopping = undefined;
		child.stdout!.on('data', (chunk: Buffer) => ring.write(chunk));
		child.stderr!.on('data', (chunk: Buffer) => ring.write(chunk));
		child.once('exit', (code, signal) => {
			ring.flush();
			ring.add(`[harness] n8n (pid ${child.pid}) exited with ${signal ?? `code ${code}`}`);
		});
		let spawnError: Error | undefined;
		child.once('error', (error) => (spawnError = error));
		// readiness answers once the DB is up; this line follows the activation of published workflows.
		const editorLine = ring.watch('Editor is now accessible via');

		const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
		let ready = false;
		try {
			while (!ready) {
				if (spawnError || hasExited(child)) {
					await sleep(200); // let the last output arrive
					throw new Error(
						`n8n exited before it was ready (${spawnError ? spawnError.message : `exit ${child.signalCode ?? child.exitCode}`}).\n` +
							`--- last 40 lines of its output ---\n${ring.tail(40)}`,
					);
				}
				if (Date.now() > deadline) {
					await terminate(item, 2000);
					throw new Error(
						`n8n was not ready within ${(opts.readyTimeoutMs ?? 60_000) / 1000} s at ${baseUrl}.\n` +
							`--- last 40 lines of its output ---\n${ring.tail(40)}`,
					);
				}
				try {
					const res = await httpRequest(`${baseUrl}/healthz/readiness`, { tls: tlsOptions, timeoutMs: 2000 });
					ready = res.status === 200 && editorLine.seen();
				} catch {
					/* not listening yet */
				}
				if (!ready) await sleep(250);
			}
		} finally {
			editorLine.dispose();
		}
		refreshTree(item);
		// Task runners start shortly after; take another snapshot then.
		setTimeout(() => refreshTree(item), 3000).unref();
	};

	const stop = (): Promise<void> => {
		const item = current;
		if (!item) return Promise.resolve();
		if (!stopping) stopping = terminate(item, STOP_GRACE_MS);
		return stopping;
	};

	await launch();

	let state: OwnerState;
	const session: Session = { cookie: undefined, browserId: `e2e-${randomBytes(8).toString('hex')}` };
	const request = (pathOrUrl: string, options: HttpOptions = {}) =>
		httpRequest(/^https?:/.test(pathOrUrl) ? pathOrUrl : `${baseUrl}${pathOrUrl}`, { tls: tlsOptions, ...options });

	try {
		state = await ensureOwner(userFolder, baseUrl, request, session);
	} catch (error) {
		await stop();
		throw error;
	}

	const api = makeApi(baseUrl, request, state, session);

	const instance: N8nInstance = {
		baseUrl,
		webhookBaseUrl,
		port,
		brokerPort,
		userFolder,
		get process() {
			return current!.child;
		},
		env,
		certificate: tls?.pair.cert,
		tlsOptions,
		owner: { email: state.email, password: state.password },
		api,
		host,
		stop,
		async restart() {
			await stop();
			ring.add('[harness] ---- restart ----');
			await launch();
		},
		logs: () => ring.tail(),
		request,
		webhookUrl: (webhookPath: string) => `${webhookBaseUrl}webhook/${webhookPath.replace(/^\/+/, '')}`,
	};
	instanceEnvs.set(instance, { host, env, ring });
	return instance;
}

const instanceEnvs = new WeakMap<N8nInstance, { host: HostPaths; env: Record<string, string>; ring: LineRing }>();

/* ------------------------------------------------------------------------------------------ */
/* Owner, API key, API client                                                                  */
/* ------------------------------------------------------------------------------------------ */

/** A browser-like session of the internal REST API: the n8n-auth cookie and the browser-id it is bound to. */
export interface Session {
	cookie: string | undefined;
	browserId: string;
}

type Requester = (pathOrUrl: string, options?: HttpOptions) => Promise<HttpResponse>;

/** Resources whose public-API scopes the harness asks for (those of workflows, credentials, executions and their tags). */
const API_KEY_RESOURCES = ['workflow', 'workflowTags', 'credential', 'execution', 'executionTags', 'tag'];

function cookieFrom(res: HttpResponse): string | undefined {
	const setCookie = res.headers['set-cookie'] ?? [];
	const auth = setCookie.map((c) => c.split(';')[0]).find((c) => c.startsWith('n8n-auth='));
	return auth;
}

function restUrlPath(restPath: string): string {
	return restPath.startsWith('/rest/') ? restPath : `/rest${restPath.startsWith('/') ? '' : '/'}${restPath}`;
}

async function restCall(
	request: Requester,
	session: Session,
	method: string,
	restPath: string,
	body?: unknown,
): Promise<HttpResponse> {
	const headers: Record<string, string> = { 'browser-id': session.browserId };
	if (session.cookie) headers.cookie = session.cookie;
	const res = await request(restUrlPath(restPath), { method, headers, body });
	const cookie = cookieFrom(res);
	if (cookie) session.cookie = cookie;
	return res;
}

function expectOk(method: string, url: string, res: HttpResponse): HttpResponse {
	if (res.status >= 400) throw new N8nHttpError(method, url, res.status, res.text);
	return res;
}

/** Sets up the owner and an API key on a new user folder; on a known one, reuses what e2e-owner.json holds. */
export async function setupOwner(
	instance: Pick<N8nInstance, 'request' | 'userFolder'>,
	session: Session = { cookie: undefined, browserId: `e2e-${randomBytes(8).toString('hex')}` },
): Promise<{ email: string; password: string }> {
	const state = readState(instance.userFolder);
	const email = state.email ?? 'owner@stacks-hooks.example.com';
	const password = state.password ?? `E2e-${randomBytes(9).toString('base64url')}-9x`;
	const res = await restCall(instance.request, session, 'POST', '/owner/setup', {
		email,
		firstName: 'E2E',
		lastName: 'Owner',
		password,
	});
	expectOk('POST', '/rest/owner/setup', res);
	writeState(instance.userFolder, { ...readState(instance.userFolder), email, password });
	return { email, password };
}

/** Creates a public-API key for the logged-in owner with every scope of workflows, credentials, executions and tags that n8n grants the owner. */
export async function createApiKey(
	instance: Pick<N8nInstance, 'request' | 'userFolder'>,
	session: Session = { cookie: undefined, browserId: `e2e-${randomBytes(8).toString('hex')}` },
): Promise<string> {
	if (!session.cookie) {
		const { email, password } = readState(instance.userFolder);
		if (!email || !password) throw new Error(`createApiKey: no owner in ${path.join(instance.userFolder, STATE_FILE)}`);
		await login(instance.request, session, email, password);
	}
	// The scopes the owner may grant (n8n's getApiKeyScopesForRole), filtered to what we need.
	const scopesRes = expectOk(
		'GET',
		'/rest/api-keys/scopes',
		await restCall(instance.request, session, 'GET', '/api-keys/scopes'),
	);
	const offered = ((scopesRes.json as { data?: string[] })?.data ?? []) as string[];
	const scopes = offered.filter((scope) => API_KEY_RESOURCES.includes(scope.split(':')[0]));
	if (!scopes.includes('workflow:create')) {
		throw new Error(`n8n offered no usable API key scopes: ${JSON.stringify(offered)}`);
	}
	const res = expectOk(
		'POST',
		'/rest/api-keys',
		await restCall(instance.request, session, 'POST', '/api-keys', {
			label: `e2e ${new Date().toISOString()}`,
			scopes,
			expiresAt: null,
		}),
	);
	const apiKey = (res.json as { data?: { rawApiKey?: string } })?.data?.rawApiKey;
	if (!apiKey) throw new Error(`POST /rest/api-keys returned no rawApiKey: ${res.text.slice(0, 500)}`);
	writeState(instance.userFolder, { ...readState(instance.userFolder), apiKey });
	return apiKey;
}

async function login(request: Requester, session: Session, email: string, password: string): Promise<void> {
	const res = await restCall(request, session, 'POST', '/login', { emailOrLdapLoginId: email, password });
	expectOk('POST', '/rest/login', res);
	if (!session.cookie) throw new Error('POST /rest/login set no n8n-auth cookie');
}

async function ensureOwner(
	userFolder: string,
	baseUrl: string,
	request: Requester,
	session: Session,
): Promise<OwnerState> {
	const target = { request, userFolder };
	let state = readState(userFolder);
	// Is an owner set up already? (settings tell whether the setup screen would show)
	const settings = await request('/rest/settings', { headers: { 'browser-id': session.browserId } });
	const showSetup = (settings.json as { data?: { userManagement?: { showSetupOnFirstLoad?: boolean } } })?.data
		?.userManagement?.showSetupOnFirstLoad;
	if (showSetup !== false) {
		await setupOwner(target, session);
	} else if (!state.email || !state.password) {
		throw new Error(
			`n8n at ${baseUrl} already has an owner, but ${path.join(userFolder, STATE_FILE)} does not hold its email and password.`,
		);
	} else if (!state.apiKey) {
		await login(request, session, state.email, state.password);
	}
	state = readState(userFolder);
	if (!state.apiKey) {
		if (!session.cookie) await login(request, session, state.email!, state.password!);
		await createApiKey(target, session);
		state = readState(userFolder);
	}
	return state as OwnerState;
}

const WORKFLOW_FIELDS = [
	'name',
	'description',
	'nodes',
	'connections',
	'settings',
	'staticData',
	'pinData',
	'nodeGroups',
	'parentFolderId',
];

function sanitizeWorkflow(workflow: WorkflowJson): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const key of WORKFLOW_FIELDS) {
		if (workflow[key] !== undefined) out[key] = workflow[key];
	}
	out.settings = (workflow.settings as Record<string, unknown> | undefined) ?? { executionOrder: 'v1' };
	return out;
}

const FINISHED = (e: Execution) => !['new', 'running', 'waiting'].includes(e.status) && e.stoppedAt !== null;

function makeApi(baseUrl: string, request: Requester, state: OwnerState, session: Session): N8nApi {
	const call = async (method: string, apiPath: string, body?: unknown): Promise<unknown> => {
		const url = `/api/v1${apiPath.startsWith('/') ? '' : '/'}${apiPath}`;
		const res = await request(url, {
			method,
			headers: { 'X-N8N-API-KEY': state.apiKey, accept: 'application/json' },
			body,
		});
		expectOk(method, `${baseUrl}${url}`, res);
		return res.json ?? (res.text || undefined);
	};

	const api: N8nApi = {
		public: call,
		async createCredential(credential) {
			return (await call('POST', '/credentials', credential)) as Awaited<ReturnType<N8nApi['createCredential']>>;
		},
		async deleteCredential(id) {
			await call('DELETE', `/credentials/${encodeURIComponent(id)}`);
		},
		async createWorkflow(workflow) {
			return (await call('POST', '/workflows', sanitizeWorkflow(workflow))) as Workflow;
		},
		async activate(id, options = {}) {
			const answer = (await call('POST', `/workflows/${encodeURIComponent(id)}/activate`, {})) as Workflow;
			if (options.wait === false) return answer;
			const publication = await api.waitForPublication(id, options);
			if (publication.status === 'failed' || publication.status === 'partial') {
				throw new N8nPublicationError(id, publication);
			}
			return api.getWorkflow(id);
		},
		async deactivate(id, options = {}) {
			const answer = (await call('POST', `/workflows/${encodeURIComponent(id)}/deactivate`, {})) as Workflow;
			if (options.wait === false) return answer;
			await api.waitForPublication(id, options);
			return api.getWorkflow(id);
		},
		async deleteWorkflow(id) {
			await call('DELETE', `/workflows/${encodeURIComponent(id)}`);
			try {
				await api.waitForPublication(id);
			} catch (error) {
				if (!(error instanceof N8nHttpError && error.status === 404)) throw error;
			}
		},
		async getWorkflow(id) {
			return (await call('GET', `/workflows/${encodeURIComponent(id)}`)) as Workflow;
		},
		async updateWorkflow(id, workflow) {
			const updated = (await call(
				'PUT',
				`/workflows/${encodeURIComponent(id)}`,
				sanitizeWorkflow(workflow),
			)) as Workflow;
			if (!updated.active) return updated;
			const publication = await api.waitForPublication(id);
			if (publication.status === 'failed' || publication.status === 'partial') {
				throw new N8nPublicationError(id, publication);
			}
			return api.getWorkflow(id);
		},
		async publicationStatus(id) {
			const answer = (await api.rest('GET', `/workflows/${encodeURIComponent(id)}/publication-status`)) as {
				data: PublicationStatus;
			};
			return answer.data;
		},
		async waitForPublication(id, options = {}) {
			const timeoutMs = options.timeoutMs ?? 30_000;
			const deadline = Date.now() + timeoutMs;
			for (;;) {
				const publication = await api.publicationStatus(id);
				if (publication.status !== 'in_progress') return publication;
				if (Date.now() > deadline) {
					throw new Error(`workflow ${id}: publication still in progress after ${timeoutMs} ms`);
				}
				await sleep(100);
			}
		},
		async executions(filter = {}) {
			const out: Execution[] = [];
			let cursor: string | undefined;
			do {
				const query = new URLSearchParams({ limit: '250' });
				if (filter.workflowId) query.set('workflowId', filter.workflowId);
				if (filter.includeData) query.set('includeData', 'true');
				if (filter.status) query.set('status', filter.status);
				if (cursor) query.set('cursor', cursor);
				const page = (await call('GET', `/executions?${query.toString()}`)) as {
					data: Execution[];
					nextCursor?: string | null;
				};
				out.push(...page.data);
				cursor = page.nextCursor ?? undefined;
			} while (cursor);
			return out;
		},
		async getExecution(id, includeData = true) {
			return (await call('GET', `/executions/${encodeURIComponent(id)}?includeData=${includeData}`)) as Execution;
		},
		async waitForExecutions(workflowId, count, options = {}) {
			const timeoutMs = options.timeoutMs ?? 30_000;
			const deadline = Date.now() + timeoutMs;
			let seen: Execution[] = [];
			for (;;) {
				seen = await api.executions({ workflowId });
				const finished = seen.filter(FINISHED);
				if (finished.length >= count) {
					const withData = await api.executions({ workflowId, includeData: true });
					return withData.filter(FINISHED).sort((a, b) => Number(a.id) - Number(b.id));
				}
				if (Date.now() > deadline) {
					throw new Error(
						`waited ${timeoutMs} ms for ${count} finished executions of workflow ${workflowId}; saw ` +
							`${seen.length}: ${JSON.stringify(seen.map((e) => ({ id: e.id, status: e.status })))}`,
					);
				}
				await sleep(options.pollMs ?? 500);
			}
		},
		async rest(method, restPath, body) {
			if (!session.cookie) await login(request, session, state.email, state.password);
			let res = await restCall(request, session, method, restPath, body);
			if (res.status === 401) {
				session.cookie = undefined;
				await login(request, session, state.email, state.password);
				res = await restCall(request, session, method, restPath, body);
			}
			expectOk(method, `${baseUrl}${restUrlPath(restPath)}`, res);
			return res.json ?? (res.text || undefined);
		},
	};
	return api;
}

/* ------------------------------------------------------------------------------------------ */
/* Running a workflow once through the CLI                                                     */
/* ------------------------------------------------------------------------------------------ */

export interface RunOnceResult {
	/** null when it was ended by a signal (see `signal`). */
	exitCode: number | null;
	signal: NodeJS.Signals | null;
	/** The `execute` command's stdout (log lines, then the JSON). */
	stdout: string;
	stderr: string;
	/** The JSON `n8n execute --rawOutput` printed after its log lines, when there was one. */
	json?: unknown;
	/** The id under which the workflow was imported. */
	workflowId: string;
}

/** Finds the JSON document that follows log lines in `n8n execute --rawOutput` output. */
export function parseTrailingJson(stdout: string): unknown {
	const lines = stdout.split(/\r?\n/);
	for (let start = 0; start < lines.length; start++) {
		if (!/^\s*[[{]/.test(lines[start])) continue;
		for (let end = lines.length; end > start; end--) {
			if (!/[\]}]\s*$/.test(lines[end - 1])) continue;
			try {
				return JSON.parse(lines.slice(start, end).join('\n'));
			} catch {
				/* try a shorter span */
			}
		}
	}
	return undefined;
}

/**
 * Runs a workflow once with the CLI, as a second n8n process on the instance's user folder and
 * environment (with its own broker port): `n8n import:workflow --input=<file>` then
 * `n8n execute --id=<id> --rawOutput`. The workflow keeps its `id` (one is made when missing).
 * The CLI uses the 'legacy' expression engine unless the instance or `options.env` sets
 * N8N_EXPRESSION_ENGINE (see below). Exit code 1 when a node threw; the JSON then holds the error.
 */
export async function runWorkflowOnce(
	instance: N8nInstance,
	workflowJson: WorkflowJson,
	options: { timeoutMs?: number; log?: (line: string) => void; env?: Record<string, string> } = {},
): Promise<RunOnceResult> {
	const known = instanceEnvs.get(instance);
	const host = known?.host ?? (await ensureHost());
	const workflowId = typeof workflowJson.id === 'string' && workflowJson.id ? workflowJson.id : randomId(16);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-run-once-'));
	const file = path.join(dir, 'workflow.json');
	fs.writeFileSync(
		file,
		JSON.stringify({ settings: { executionOrder: 'v1' }, ...workflowJson, id: workflowId, active: false }),
	);
	const instanceEnv = known?.env ?? instance.env;
	const env: NodeJS.ProcessEnv = {
		...inheritedEnv(),
		...instanceEnv,
		// With the default 'vm' engine (isolated-vm), `n8n execute` 2.41 on Node 24 dies of SIGSEGV
		// at exit in about one run of four, after printing its result; 'legacy' evaluates the same
		// expressions in-process and exits cleanly.
		N8N_EXPRESSION_ENGINE: instanceEnv.N8N_EXPRESSION_ENGINE ?? 'legacy',
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		...(options.env ?? {}),
	};
	const timeoutMs = options.timeoutMs ?? 120_000;
	try {
		const imported = await runCommand(host.node24, [host.n8nBin, 'import:workflow', `--input=${file}`], {
			cwd: instance.userFolder,
			env,
			timeoutMs,
			log: options.log,
		});
		if (imported.code !== 0) {
			throw commandError('`n8n import:workflow`', imported, 'See its output above.');
		}
		const executed = await runCommand(host.node24, [host.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'], {
			cwd: instance.userFolder,
			env,
			timeoutMs,
			log: options.log,
		});
		return {
			exitCode: executed.code,
			signal: executed.signal,
			stdout: executed.stdout,
			stderr: executed.stderr,
			json: parseTrailingJson(executed.stdout),
			workflowId,
		};
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

function randomId(length: number): string {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	const bytes = randomBytes(length);
	let out = '';
	for (let i = 0; i < length; i++) out += alphabet[bytes[i] % alphabet.length];
	return out;
}
