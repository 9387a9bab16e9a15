/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Real Redis and PostgreSQL servers for n8n's queue mode (tests, `npm start -- --queue`, the
 * benchmark): Debian's `redis-server` and `postgresql`, installed with apt-get when the machine
 * lacks them, each started on a free loopback port with its data in a new temporary folder, and
 * stopped by PID (with that folder removed) by stop() or when this process ends.
 *
 * PostgreSQL refuses to run as root: its server runs as the `postgres` user the Debian package
 * creates, with trust authentication on 127.0.0.1 only.
 */
import { type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';

import { type DebianPackage, ensureDebianPackages } from '../debian';
import { freePort } from '../ports';
import { atExit, eachLine, hasExited, run, runError, startProcess, stopProcess } from './process';

type Log = (msg: string) => void;
const defaultLog: Log = (msg) => console.log(`[servers] ${msg}`);

const REDIS_SERVER = '/usr/bin/redis-server';
const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The newest installed PostgreSQL's bin folder (Debian keeps each major version apart), if any. */
function postgresBin(): string | undefined {
	const versions = fs.existsSync(POSTGRES_ROOT) ? fs.readdirSync(POSTGRES_ROOT).filter((name) => /^\d+$/.test(name)) : [];
	const newest = versions.sort((a, b) => Number(b) - Number(a)).find((version) => fs.existsSync(path.join(POSTGRES_ROOT, version, 'bin', 'postgres')));
	return newest && path.join(POSTGRES_ROOT, newest, 'bin');
}

/** Debian's packages of the two servers, as ensureDebianPackages takes them. */
export const SERVER_PACKAGES: DebianPackage[] = [
	{ name: 'redis-server', installed: () => fs.existsSync(REDIS_SERVER) },
	{ name: 'postgresql', installed: () => postgresBin() !== undefined },
];

/** Installs Debian's redis-server and postgresql when either is missing (as root: apt-get). */
export async function ensureServers(log: Log = defaultLog): Promise<void> {
	await ensureDebianPackages(SERVER_PACKAGES, log);
}

export interface Server {
	host: '127.0.0.1';
	port: number;
	/** The server's own process (its pid is its process group's). */
	process: ChildProcess;
	/** Where its data lives (removed by stop()). */
	dataDir: string;
	/** SIGTERM, SIGKILL after a grace period; removes the data folder. Idempotent. */
	stop(): Promise<void>;
}

/** Lines printed by a server, kept for the error when it does not come up. */
function started(cmd: string, args: string[], options: Parameters<typeof startProcess>[2]) {
	const child = startProcess(cmd, args, options);
	const lines: string[] = [];
	eachLine(child, (line) => {
		lines.push(line);
		if (lines.length > 200) lines.shift();
	});
	return { child, tail: () => lines.slice(-30).join('\n') };
}

function serverHandle(child: ChildProcess, port: number, dataDir: string): Server {
	let stopping: Promise<void> | undefined;
	const removeData = () => fs.rmSync(dataDir, { recursive: true, force: true });
	atExit(removeData);
	return {
		host: '127.0.0.1',
		port,
		process: child,
		dataDir,
		stop: () => (stopping ??= stopProcess(child, 10_000).then(removeData)),
	};
}

async function waitUntil(what: string, child: ChildProcess, tail: () => string, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
	for (const deadline = Date.now() + timeoutMs; ; await sleep(100)) {
		if (hasExited(child)) throw new Error(`${what} exited before it was ready (exit ${child.signalCode ?? child.exitCode}).\n${tail()}`);
		if (await ready()) return;
		if (Date.now() > deadline) {
			await stopProcess(child, 2000);
			throw new Error(`${what} was not ready within ${timeoutMs / 1000} s.\n${tail()}`);
		}
	}
}

/** A Redis server on a free loopback port, in memory only (no snapshots, no append-only file). */
export async function startRedis(log: Log = defaultLog): Promise<Server> {
	await ensureServers(log);
	const port = await freePort();
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-redis-'));
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dataDir];
	const { child, tail } = started(REDIS_SERVER, args, { cwd: dataDir, env: process.env });
	const cli = REDIS_SERVER.replace(/redis-server$/, 'redis-cli');
	await waitUntil(`redis-server on port ${port}`, child, tail, async () => {
		const pong = await run(cli, ['-h', '127.0.0.1', '-p', String(port), 'ping'], { cwd: dataDir, timeoutMs: 5000 }).catch(() => undefined);
		return pong?.stdout.trim() === 'PONG';
	});
	return serverHandle(child, port, dataDir);
}

/** The uid and gid of a system user, from /etc/passwd. */
function systemUser(name: string): { uid: number; gid: number } {
	const line = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((entry) => entry.startsWith(`${name}:`));
	if (!line) throw new Error(`PostgreSQL must run as the "${name}" user, which /etc/passwd lacks. Reinstall Debian's postgresql package.`);
	const [, , uid, gid] = line.split(':');
	return { uid: Number(uid), gid: Number(gid) };
}

export interface Postgres extends Server {
	/** A database made for the caller, owned by `user`. */
	database: string;
	user: 'postgres';
	/** Runs one SQL statement with psql (in `database`, else in the caller's database); the rows, each a list of its columns' text. */
	query(sql: string, database?: string): Promise<string[][]>;
	/**
	 * Opens a transaction in a session of its own, runs `sql` in it and keeps it open (its row locks
	 * held: a slow writer) until release() rolls it back.
	 */
	hold(sql: string, database?: string): Promise<{ release(): Promise<void> }>;
}

/** A PostgreSQL server on a free loopback port with a fresh cluster and one database, `database`. */
export async function startPostgres(database: string, log: Log = defaultLog): Promise<Postgres> {
	await ensureServers(log);
	const bin = postgresBin()!;
	const port = await freePort();
	const user = systemUser('postgres');
	// Under /tmp (reachable by every user), and owned by postgres: initdb wants its own folder.
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-postgres-'));
	fs.chownSync(dataDir, user.uid, user.gid);
	fs.chmodSync(dataDir, 0o700);
	const asPostgres = { cwd: dataDir, env: { ...process.env, HOME: dataDir }, uid: user.uid, gid: user.gid };
	const clusterDir = path.join(dataDir, 'cluster');

	const init = await run(path.join(bin, 'initdb'), ['-D', clusterDir, '--auth=trust', '-U', 'postgres', '--no-sync'], { ...asPostgres, timeoutMs: 60_000 });
	if (init.code !== 0) {
		fs.rmSync(dataDir, { recursive: true, force: true });
		throw runError(`initdb (${bin})`, init, 'Check that the postgres user can write under the temporary folder.');
	}

	const args = ['-D', clusterDir, '-p', String(port), '-k', dataDir, '-h', '127.0.0.1', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
	const { child, tail } = started(path.join(bin, 'postgres'), args, asPostgres);
	const psqlArgs = ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'];
	await waitUntil(`postgres on port ${port}`, child, tail, async () => {
		const ready = await run(path.join(bin, 'pg_isready'), psqlArgs, { cwd: os.tmpdir(), timeoutMs: 5000 }).catch(() => undefined);
		return ready?.code === 0;
	});
	const created = await run(path.join(bin, 'createdb'), [...psqlArgs, database], { cwd: os.tmpdir() });
	if (created.code !== 0) {
		await stopProcess(child, 5000);
		throw runError(`createdb ${database}`, created, 'See PostgreSQL\'s message above.');
	}
	const psql = fs.existsSync('/usr/bin/psql') ? '/usr/bin/psql' : path.join(bin, 'psql');
	return {
		...serverHandle(child, port, dataDir),
		database,
		user: 'postgres',
		async query(sql: string, inDatabase = database): Promise<string[][]> {
			const result = await run(psql, [...psqlArgs, '-d', inDatabase, '-X', '-A', '-t', '-F', '\t', '-v', 'ON_ERROR_STOP=1', '-c', sql], { cwd: os.tmpdir(), timeoutMs: 30_000 });
			if (result.code !== 0) throw runError(`psql -c ${JSON.stringify(sql)}`, result, 'See PostgreSQL\'s message above.');
			return result.stdout.split('\n').filter((line) => line !== '').map((line) => line.split('\t'));
		},
		async hold(sql: string, inDatabase = database) {
			const session = startProcess(psql, [...psqlArgs, '-d', inDatabase, '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=1'], { cwd: os.tmpdir(), env: process.env, stdio: ['pipe', 'pipe', 'pipe'] });
			const output: string[] = [];
			const held = new Promise<void>((resolve, reject) => {
				eachLine(session, (line) => {
					output.push(line);
					if (line === 'held') resolve();
				});
				session.once('exit', () => reject(new Error(`psql ended before it held ${JSON.stringify(sql)}:\n${output.join('\n')}`)));
			});
			session.stdin!.write(`BEGIN;\n${sql};\nSELECT 'held';\n`);
			await held;
			return {
				async release() {
					const ended = new Promise<void>((resolve) => session.once('exit', () => resolve()));
					session.stdin!.end('ROLLBACK;\n\\q\n');
					await ended;
				},
			};
		},
	};
}
