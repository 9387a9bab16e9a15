/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * A look inside a running n8n's process, through Node's inspector (the Chrome DevTools Protocol). n8n is
 * started with `--inspect` on a port of 127.0.0.1 when asked (instance.ts, `inspectorPort`).
 *
 * The memory test and the benchmark use it for what no API of n8n tells: what the trigger keeps in memory
 * (its nodeMemory.ts, as n8n loaded it), and n8n's heap after a collection.
 *
 * Written by hand on undici's WebSocket: the protocol needs four messages here, and a DevTools client
 * library would add a dependency for them.
 */
import * as path from 'path';
import { WebSocket } from 'undici';

import { PACKAGE_NAME } from '../paths';

/** What the trigger keeps per node in n8n's process (nodes/StacksHooksTrigger/nodeMemory.ts, nodesInMemory). */
export interface TriggerMemory {
	/** By node key (the workflow's id, a NUL, the node's id): what each slot holds of that node. */
	nodes: Record<string, string[]>;
}

export interface HeapFigures {
	/** The JavaScript heap in use right after a full collection, in bytes. */
	heapUsed: number;
	/** The process's resident set size, in bytes. */
	rss: number;
	/** What V8 holds for the JavaScript heap, used or not, in bytes: V8 seldom gives it back. */
	heapTotal: number;
	/** Memory outside the heap that JavaScript objects hold (Buffers and the like), in bytes. */
	external: number;
}

/** One session with the inspector of the n8n listening for it on `port`. */
export class Inspector {
	private nextId = 1;
	private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

	private constructor(private readonly socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
			const pending = message.id === undefined ? undefined : this.waiting.get(message.id);
			if (!pending) return;
			this.waiting.delete(message.id!);
			if (message.error) pending.reject(new Error(message.error.message));
			else pending.resolve(message.result);
		});
		socket.addEventListener('close', () => {
			for (const pending of this.waiting.values()) pending.reject(new Error("n8n's inspector closed the connection"));
			this.waiting.clear();
		});
	}

	static async connect(port: number): Promise<Inspector> {
		const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
		const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
		await new Promise<void>((resolve, reject) => {
			socket.addEventListener('open', () => resolve(), { once: true });
			socket.addEventListener('error', () => reject(new Error(`Could not open n8n's inspector on port ${port}`)), { once: true });
		});
		return new Inspector(socket);
	}

	private async send<T>(method: string, params: object = {}): Promise<T> {
		const id = this.nextId++;
		const answer = new Promise<unknown>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
		this.socket.send(JSON.stringify({ id, method, params }));
		return (await answer) as T;
	}

	/** The value of `expression`, evaluated in n8n's process with the console's `require`. */
	async evaluate<T>(expression: string): Promise<T> {
		const { result, exceptionDetails } = await this.send<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>('Runtime.evaluate', {
			expression,
			includeCommandLineAPI: true,
			awaitPromise: true,
			returnByValue: true,
		});
		if (exceptionDetails) throw new Error(`In n8n's process: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
		return result.value as T;
	}

	/** What the trigger keeps in memory, read from the module n8n loaded from the package installed in `userFolder`. */
	async triggerMemory(userFolder: string): Promise<TriggerMemory> {
		const file = path.join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME, 'dist', 'nodes', 'StacksHooksTrigger', 'nodeMemory.js');
		return await this.evaluate<TriggerMemory>(`require(${JSON.stringify(file)}).nodesInMemory()`);
	}

	/** n8n's heap in use after a full collection, and its resident set size. */
	async heap(): Promise<HeapFigures> {
		await this.send('HeapProfiler.collectGarbage');
		const { usedSize } = await this.send<{ usedSize: number }>('Runtime.getHeapUsage');
		const { rss, heapTotal, external } = await this.evaluate<{ rss: number; heapTotal: number; external: number }>('process.memoryUsage()');
		return { heapUsed: usedSize, rss, heapTotal, external };
	}

	close(): void {
		this.socket.close();
	}
}
