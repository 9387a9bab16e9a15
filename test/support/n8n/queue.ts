/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * n8n's queue mode, for the end-to-end suite, `npm start -- --queue` and the benchmark: real
 * Redis and PostgreSQL (servers.ts), one main process (editor, activation), webhook processes
 * (production webhook calls) and workers (executions), all n8n 2.41 over HTTPS on 127.0.0.1,
 * sharing one user folder (the package installed as n8n installs community packages, one
 * encryption key, one certificate), behind a load balancer whose address every process takes as
 * its N8N_WEBHOOK_URL: production webhooks go to the webhook processes, test webhooks to the main.
 *
 * The single-process stack (stack.ts) is the same set-up with one `n8n start` on SQLite.
 */
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';

import type { Emulator } from '../../emulator';
import { type N8nInstance, type N8nProcess, startN8n, startN8nProcess, type StartOptions } from './instance';
import { freePort } from '../ports';
import { installPackage, packPackage } from './package';
import { type Postgres, type Server, startPostgres, startRedis } from './servers';
import { emulatorWithCredential, type EmulatorAccountOptions } from './stack';
import { selfSignedPair, type TlsPair } from './tls';

/**
 * An HTTPS load balancer on 127.0.0.1 set up as n8n's queue-mode guide asks of a real one:
 * production webhooks (`/webhook/…`) to the webhook processes in turn, request by request;
 * everything else, test webhooks (`/webhook-test/…`) included, to the main process.
 */
export interface LoadBalancer {
	port: number;
	/** Requests handed to the main process and to each webhook process so far. */
	served: { main: number; webhooks: number[] };
	close(): Promise<void>;
}

/**
 * Hand-written: two dozen lines of Node's https. The proxy packages on npm are either unmaintained
 * (http-proxy: last release 2020) or an Express middleware; the load balancer must speak n8n's own
 * HTTPS on both sides and route by path.
 */
export async function startLoadBalancer(opts: { mainPort: number; webhookPorts: number[]; tls: TlsPair }): Promise<LoadBalancer> {
	const agent = new https.Agent({ keepAlive: true, ca: opts.tls.cert });
	const served = { main: 0, webhooks: opts.webhookPorts.map(() => 0) };
	let turn = 0;
	const server = https.createServer({ key: opts.tls.key, cert: opts.tls.cert }, (req, res) => {
		let port = opts.mainPort;
		if (req.url?.startsWith('/webhook/')) {
			const index = turn++ % opts.webhookPorts.length;
			served.webhooks[index]++;
			port = opts.webhookPorts[index];
		} else {
			served.main++;
		}
		const upstream = https.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
			res.writeHead(answer.statusCode ?? 502, answer.headers);
			answer.pipe(res);
		});
		upstream.on('error', (error) => {
			if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
			res.end(`load balancer: 127.0.0.1:${port} is unreachable (${error.message})`);
		});
		req.pipe(upstream);
	});
	const port = await freePort();
	await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
	return {
		port,
		served,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				agent.destroy();
				server.close(() => resolve());
			}),
	};
}

export interface QueueStackOptions extends EmulatorAccountOptions {
	/** Default 2 each. */
	webhookProcesses?: number;
	workers?: number;
	/** Each worker's --concurrency. Default: n8n's (10). */
	workerConcurrency?: number;
	/** Every n8n process's expression engine (instance.ts, StartOptions). Default: n8n's own. */
	expressionEngine?: StartOptions['expressionEngine'];
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
	/** Each line of every n8n process, prefixed with its name (e.g. `webhook-2`). */
	log?: (line: string) => void;
	provisionLog?: StartOptions['provisionLog'];
	/** The packed package (npm pack's tarball) to install. Default: packed now. */
	tarball?: string;
	/** The main process's port. Default: a free port. */
	mainPort?: number;
	/** Where n8n keeps its files (the package under .n8n/nodes). Default: a new temporary folder, removed by close(). */
	userFolder?: string;
	/**
	 * Every process's N8N_WEBHOOK_URL, when not the load balancer's own address: a public one the n8n processes cannot
	 * reach (stack.ts, UNREACHABLE_PUBLIC_URL), which the emulator reaches as the load balancer.
	 */
	publicUrl?: string;
}

export interface QueueStack {
	main: N8nInstance;
	webhooks: N8nProcess[];
	workers: N8nProcess[];
	redis: Server;
	postgres: Postgres;
	balancer: LoadBalancer;
	emu: Emulator;
	credential: { id: string; name: string };
	userFolder: string;
	/** What every n8n process of the stack runs with beside its own port. */
	env: Record<string, string>;
	/** Stops every n8n process, the emulator, the load balancer and both servers; removes the temporary folders. */
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
		const [redis, postgres] = await Promise.all([startRedis(), startPostgres('n8n'), installPackage(userFolder, opts.tarball ?? (await packPackage()))]);
		cleanups.push(() => redis.stop(), () => postgres.stop());
		const webhookPorts = await Promise.all(Array.from({ length: opts.webhookProcesses ?? 2 }, () => freePort()));
		const mainPort = opts.mainPort ?? (await freePort());
		// Made here for the load balancer; every n8n process finds and uses the same pair.
		const tls = await selfSignedPair(path.join(userFolder, 'e2e-tls'));
		const balancer = await startLoadBalancer({ mainPort, webhookPorts, tls });
		cleanups.push(() => balancer.close());

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
			// Webhooks are reached through the load balancer, whichever process registers them.
			N8N_WEBHOOK_URL: opts.publicUrl ?? `https://127.0.0.1:${balancer.port}/`,
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			...opts.env,
		};
		const named = (name: string) => (opts.log ? (line: string) => opts.log!(`[${name}] ${line}`) : undefined);
		const common = { https: true, userFolder, env, expressionEngine: opts.expressionEngine, provisionLog: opts.provisionLog };
		// The main process runs the migrations: the others start once it is up.
		const main = await startN8n({ ...common, port: mainPort, log: named('main') });
		cleanups.push(() => main.stop());
		const started = await Promise.all([
			...webhookPorts.map((port, i) => startN8nProcess({ ...common, role: 'webhook', port, log: named(`webhook-${i + 1}`) })),
			...Array.from({ length: opts.workers ?? 2 }, (_, i) =>
				startN8nProcess({ ...common, role: 'worker', concurrency: opts.workerConcurrency, log: named(`worker-${i + 1}`) }),
			),
		].map((starting) => starting.then((proc) => (cleanups.push(() => proc.stop()), proc))));
		const webhooks = started.filter((proc) => proc.role === 'webhook');
		const workers = started.filter((proc) => proc.role === 'worker');

		const { emu, credential } = await emulatorWithCredential(main, opts);
		cleanups.push(() => emu.close());
		if (opts.publicUrl) emu.routeDeliveries(opts.publicUrl, `https://127.0.0.1:${balancer.port}`);
		return { main, webhooks, workers, redis, postgres, balancer, emu, credential, userFolder, env, close };
	} catch (error) {
		await close();
		throw error;
	}
}
