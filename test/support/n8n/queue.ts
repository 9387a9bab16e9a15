/**
 * n8n's queue mode, for the end-to-end suite, `npm start -- --queue` and the benchmark: real
 * Redis and PostgreSQL (servers.ts), one main process (editor, activation), webhook processes
 * (production webhook calls) and workers (executions), all n8n 2.41 over HTTPS on 127.0.0.1,
 * sharing one user folder (the package installed as n8n installs community packages, one
 * encryption key), with the emulator delivering to a loopback round-robin proxy in front of the
 * webhook processes, which is what every process takes as its N8N_WEBHOOK_URL.
 *
 * The single-process stack (stack.ts) is the same set-up with one `n8n start` on SQLite.
 */
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

import { type Emulator, type EmulatorOptions, startEmulator } from '../../emulator';
import { freePort, type N8nInstance, type N8nProcess, startN8n, startN8nProcess, type StartOptions } from './instance';
import { installPackage, packPackage } from './package';
import { type Postgres, type Server, startPostgres, startRedis } from './servers';

/** A TCP proxy on 127.0.0.1 that hands each new connection to the next target in turn. */
export interface RoundRobin {
	port: number;
	/** Connections handed to each target so far, in the targets' order. */
	connections: number[];
	/** The targets' ports (replaced by setTargets, e.g. after a restart on new ports). */
	targets: number[];
	close(): Promise<void>;
}

/**
 * Hand-written because it is a dozen lines of `net`: the HTTP proxies on npm terminate TLS or
 * balance per request, and deliveries must reach each webhook process over n8n's own HTTPS.
 */
export async function startRoundRobin(targets: number[]): Promise<RoundRobin> {
	const connections = targets.map(() => 0);
	const sockets = new Set<net.Socket>();
	let turn = 0;
	const server = net.createServer((client) => {
		const index = turn++ % targets.length;
		connections[index] = (connections[index] ?? 0) + 1;
		const upstream = net.connect(targets[index], '127.0.0.1');
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.once('close', () => sockets.delete(socket));
		}
		client.on('error', () => upstream.destroy());
		upstream.on('error', () => client.destroy());
		client.pipe(upstream).pipe(client);
	});
	const port = await freePort();
	await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
	return {
		port,
		connections,
		targets,
		close: () =>
			new Promise<void>((resolve) => {
				sockets.forEach((socket) => socket.destroy());
				server.close(() => resolve());
			}),
	};
}

export interface QueueStackOptions {
	apiKey: string;
	/** The account's consumer secret at the emulator. */
	consumerSecret: string;
	credentialName: string;
	/** Default 2 each. */
	webhookProcesses?: number;
	workers?: number;
	/** Each worker's --concurrency. Default: n8n's (10). */
	workerConcurrency?: number;
	emulator?: EmulatorOptions;
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
	/** Each line of every n8n process, prefixed with its name (e.g. `webhook-2`). */
	log?: (line: string) => void;
	provisionLog?: StartOptions['provisionLog'];
	/** The main process's port. Default: a free port. */
	mainPort?: number;
	/** Where n8n keeps its files (the package under .n8n/nodes). Default: a new temporary folder, removed by close(). */
	userFolder?: string;
}

export interface QueueStack {
	main: N8nInstance;
	webhooks: N8nProcess[];
	workers: N8nProcess[];
	redis: Server;
	postgres: Postgres;
	proxy: RoundRobin;
	emu: Emulator;
	credential: { id: string; name: string };
	userFolder: string;
	/** What every n8n process of the stack runs with beside its own port. */
	env: Record<string, string>;
	/** Stops every n8n process, the emulator, the proxy and both servers; removes the temporary folders. */
	close(): Promise<void>;
}

export async function startQueueStack(opts: QueueStackOptions): Promise<QueueStack> {
	const ownFolder = !opts.userFolder;
	const userFolder = opts.userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-queue-'));
	const cleanups: Array<() => Promise<void>> = [];
	const close = async () => {
		for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
		if (ownFolder) fs.rmSync(userFolder, { recursive: true, force: true });
	};
	try {
		const [redis, postgres] = await Promise.all([startRedis(), startPostgres('n8n'), installPackage(userFolder, await packPackage())]);
		cleanups.push(() => redis.stop(), () => postgres.stop());
		const webhookPorts = await Promise.all(Array.from({ length: opts.webhookProcesses ?? 2 }, () => freePort()));
		const proxy = await startRoundRobin(webhookPorts);
		cleanups.push(() => proxy.close());

		const env: Record<string, string> = {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: redis.host,
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.host,
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: postgres.database,
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: 'trust-auth',
			// Production webhooks are reached through the proxy, whichever process registers them.
			N8N_WEBHOOK_URL: `https://127.0.0.1:${proxy.port}/`,
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			...opts.env,
		};
		const named = (name: string) => (opts.log ? (line: string) => opts.log!(`[${name}] ${line}`) : undefined);
		const common = { https: true, userFolder, env, provisionLog: opts.provisionLog };
		// The main process runs the migrations: the others start once it is up.
		const main = await startN8n({ ...common, port: opts.mainPort, log: named('main'), readyTimeoutMs: 120_000 });
		cleanups.push(() => main.stop());
		const started = await Promise.all([
			...webhookPorts.map((port, i) => startN8nProcess({ ...common, role: 'webhook', port, log: named(`webhook-${i + 1}`) })),
			...Array.from({ length: opts.workers ?? 2 }, (_, i) =>
				startN8nProcess({ ...common, role: 'worker', concurrency: opts.workerConcurrency, log: named(`worker-${i + 1}`) }),
			),
		].map((starting) => starting.then((proc) => (cleanups.push(() => proc.stop()), proc))));
		const webhooks = started.filter((proc) => proc.role === 'webhook');
		const workers = started.filter((proc) => proc.role === 'worker');

		const emu = await startEmulator({
			accounts: [{ apiKey: opts.apiKey, consumerSecret: opts.consumerSecret }],
			deliveryCa: main.certificate,
			...opts.emulator,
		});
		cleanups.push(() => emu.close());
		const created = await main.api.createCredential({
			name: opts.credentialName,
			type: 'stacksHooksApi',
			data: { apiKey: opts.apiKey, network: 'testnet', baseUrl: emu.url },
		});
		return { main, webhooks, workers, redis, postgres, proxy, emu, credential: { id: created.id, name: created.name }, userFolder, env, close };
	} catch (error) {
		await close();
		throw error;
	}
}
