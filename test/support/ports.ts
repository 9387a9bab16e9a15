/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Ports for servers the tests start later (n8n and its task broker, Redis, PostgreSQL, the load
 * balancer's back ends): free now, and still free when the server binds them, seconds later.
 *
 * A port the kernel hands out for `listen(0)` is an ephemeral one, from the same range every outgoing
 * connection takes its local port from: between our pick and n8n's bind (its task broker binds
 * after the migrations, 10 s or more on a loaded machine) an `npm ci` beside it can take it, and n8n
 * exits at once ("n8n Task Broker's port … is already in use"). So these come from below the
 * ephemeral range, where no connection and no `listen(0)` lands, and each is reserved across the
 * processes of a run (the jest workers, `npm start`) as crossProcessLock.ts takes a lock: a folder
 * made with mkdir holding the owner's pid; a dead owner's ports are taken over. Written by hand:
 * port libraries (get-port, portfinder) keep their reservations inside one process.
 */
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

import { takeFolder } from './crossProcessLock';
import { atExit } from './n8n/process';

const RESERVED = path.join(os.tmpdir(), 'stacks-hooks-ports');
/** Below this, Linux's default ephemeral range (32768-60999) never hands a port out. */
const FIRST = 20_000;
const mine = new Set<string>();

/** The first port of the kernel's ephemeral range (its default when the file cannot be read). */
function ephemeralStart(): number {
	try {
		const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
		if (low > FIRST + 1000) return low;
	} catch {
		/* not Linux */
	}
	return 32_768;
}

/** Takes `port` for this process, unless a living process holds it. */
function reserve(port: number): boolean {
	const dir = path.join(RESERVED, String(port));
	if (!takeFolder(dir).taken) return false;
	if (mine.size === 0) atExit(() => mine.forEach((own) => fs.rmSync(own, { recursive: true, force: true })));
	mine.add(dir);
	return true;
}

function canListen(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = net.createServer().unref();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/** A loopback port nothing listens on, below the ephemeral range, reserved for this process until it exits. */
export async function freePort(): Promise<number> {
	fs.mkdirSync(RESERVED, { recursive: true });
	const span = ephemeralStart() - FIRST;
	for (let tries = 0; tries < 200; tries++) {
		const port = FIRST + Math.floor(Math.random() * span);
		if (!reserve(port)) continue;
		if (await canListen(port)) return port;
	}
	throw new Error(`No free port found in 200 tries between ${FIRST} and ${FIRST + span}. Is ${RESERVED} full of folders of live processes?`);
}
