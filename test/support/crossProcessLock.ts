/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * A lock between the processes of one test run (the background installs of `npm test`, jest's
 * head start, each jest worker): a folder made with mkdir, which is atomic, holding the owner's pid.
 * The lock of a process that died is taken over. Written by hand: the few lines a lock-file library
 * would hold, and such a library would be one more dependency for the tests to install.
 */
import * as fs from 'fs';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/**
 * Makes the folder `dir` (its parent must exist) holding this process's pid, and so owns it; a dead
 * owner's folder is taken over. Else the living owner's pid (NaN while its folder is being written).
 */
export function takeFolder(dir: string): { taken: true } | { taken: false; owner: number } {
	for (;;) {
		try {
			fs.mkdirSync(dir);
			fs.writeFileSync(path.join(dir, 'pid'), String(process.pid));
			return { taken: true };
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
		}
		let owner = NaN;
		try {
			owner = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
		} catch {
			/* being written or removed */
		}
		if (!(owner > 0) || isAlive(owner)) return { taken: false, owner };
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * Takes the lock `lockDir` (its parent must exist), waiting for its owner for up to `timeoutMs`;
 * resolves to the function that releases it. `log` hears once that it waits, and for whom.
 */
export async function acquireLock(lockDir: string, log: (msg: string) => void, timeoutMs = 15 * 60_000): Promise<() => void> {
	const deadline = Date.now() + timeoutMs;
	for (let announced = false; ; await sleep(1000)) {
		const take = takeFolder(lockDir);
		if (take.taken) return () => fs.rmSync(lockDir, { recursive: true, force: true });
		if (!announced) log(`waiting for another process (pid ${take.owner}) that holds ${lockDir}`);
		announced = true;
		if (Date.now() > deadline) {
			throw new Error(`Gave up waiting for ${lockDir} (held by pid ${take.owner}). If no other test process is running, delete it and run again.`);
		}
	}
}
