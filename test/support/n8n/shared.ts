/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * One running n8n for the suites of a run that only activate workflows and send them blocks (`deliveries`,
 * `examples` and `memory`). A suite that tests a start, a restart, a version or a topology starts its own (stack.ts, queue.ts).
 *
 * The first suite to ask starts it, with the packed package installed as for any stack (stack.ts). The others
 * find it running, in whichever jest worker they run. Each suite brings an emulator and an account of its own, with
 * its own credential in n8n. When it ends, it deletes the workflows that use that credential, and the credential.
 * The next suite then finds n8n as a new one, but for the executions kept.
 *
 * Sharing saves a start of n8n with a new database, the install of the package into it, and its stop. In a cold run
 * on a 2-core machine that was about 34 s of a lane: `deliveries` took 48 s with its own n8n, 14 s of them its test.
 * The shared n8n runs n8n's default expression engine, as the examples need, so `deliveries` pays an isolate per
 * execution: its test took 29 s alone on it.
 *
 * The process that started n8n owns it. jest's teardown (test/teardown.ts) stops it at the end of the run, and it
 * stops anyway when its owner ends (process.ts). The folder `.build/shared-n8n/` says who owns it and where n8n
 * listens. A folder left by a run that ended is taken over (crossProcessLock.ts), and its n8n is gone with that run.
 */
import * as fs from 'fs';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';

import type { Emulator } from '../../emulator';
import { takeFolder } from '../crossProcessLock';
import { REPO_DIR } from '../paths';
import { freePort } from '../ports';
import type { Workflow } from './api';
import { addressOf, attachN8n, N8N_STOP_GRACE_MS, type N8nAddress, type RunningN8n } from './instance';
import { atExit, stopGroup } from './process';
import { type EmulatorAccountOptions, emulatorWithCredential, startN8nWithPackage } from './stack';

const FOLDER = path.join(REPO_DIR, '.build', 'shared-n8n');
const ADDRESS_FILE = path.join(FOLDER, 'n8n.json');
/** How long a suite waits for another to start the shared n8n: a first start on a loaded machine takes minutes. */
const START_TIMEOUT_MS = 10 * 60_000;

/** Where the shared n8n listens, and its process group, for the teardown. */
interface SharedAddress extends N8nAddress {
	pid: number;
}

export interface SharedStack {
	n8n: RunningN8n;
	emu: Emulator;
	credential: { id: string; name: string };
	/** Deletes this suite's workflows and credential from n8n, and stops its emulator. n8n goes on running. */
	close(): Promise<void>;
}

/** The shared n8n with a new emulator and account, and a credential for them. */
export async function sharedStack(account: EmulatorAccountOptions): Promise<SharedStack> {
	const n8n = await sharedN8n();
	const { emu, credential } = await emulatorWithCredential(n8n, account);
	return {
		n8n,
		emu,
		credential,
		async close() {
			try {
				await deleteWorkflowsUsing(n8n, credential.id);
				await n8n.api.public('DELETE', `/credentials/${credential.id}`);
			} finally {
				await emu.close();
			}
		},
	};
}

/** The running shared n8n: started here when no living process owns it, else the one its owner wrote down. */
async function sharedN8n(): Promise<RunningN8n> {
	fs.mkdirSync(path.dirname(FOLDER), { recursive: true });
	for (const deadline = Date.now() + START_TIMEOUT_MS; ; await sleep(500)) {
		const take = takeFolder(FOLDER);
		if (take.taken) return attachN8n(await startShared());
		const address = readAddress();
		if (address) return attachN8n(address);
		if (Date.now() > deadline) {
			throw new Error(`The shared n8n was not running after ${START_TIMEOUT_MS / 60_000} minutes: pid ${take.owner} owns ${FOLDER} but wrote no address. Delete the folder and run again.`);
		}
	}
}

/** Starts n8n for the run and writes its address; on failure, gives the folder up so that the next suite tries. */
async function startShared(): Promise<SharedAddress> {
	try {
		// With Node's inspector open, for the memory test (inspector.ts).
		const n8n = await startN8nWithPackage({ inspectorPort: await freePort() });
		atExit(() => fs.rmSync(n8n.userFolder, { recursive: true, force: true }));
		const address = { ...addressOf(n8n), pid: n8n.process.pid! };
		fs.writeFileSync(`${ADDRESS_FILE}.tmp`, JSON.stringify(address));
		fs.renameSync(`${ADDRESS_FILE}.tmp`, ADDRESS_FILE);
		return address;
	} catch (error) {
		fs.rmSync(FOLDER, { recursive: true, force: true });
		throw error;
	}
}

function readAddress(): SharedAddress | undefined {
	try {
		return JSON.parse(fs.readFileSync(ADDRESS_FILE, 'utf8')) as SharedAddress;
	} catch {
		return undefined; // not written yet
	}
}

/** Deactivates and deletes every workflow with a node that uses the credential `credentialId`. */
async function deleteWorkflowsUsing(n8n: RunningN8n, credentialId: string): Promise<void> {
	const workflows = await n8n.api.list<Workflow>('/workflows');
	const uses = (workflow: Workflow) =>
		workflow.nodes.some((node) => Object.values((node.credentials ?? {}) as Record<string, { id?: string }>).some((ref) => ref?.id === credentialId));
	for (const workflow of workflows.filter(uses)) {
		if (workflow.active) await n8n.api.deactivate(workflow.id);
		await n8n.api.public('DELETE', `/workflows/${workflow.id}`);
	}
}

/**
 * Stops the shared n8n of this run, if one runs, as its owner would (N8N_STOP_GRACE_MS); then removes its user folder
 * and its address. jest would wait forever for an n8n its own process started
 * (a run of one suite, which jest runs in its own process).
 */
export async function stopSharedN8n(): Promise<void> {
	const address = readAddress();
	if (!address) return;
	// An address left by a run that was stopped before its teardown may name a process group long gone, whose
	// number another process has taken since: only a group still led by n8n is stopped.
	if (isN8n(address.pid)) await stopGroup(address.pid, N8N_STOP_GRACE_MS);
	fs.rmSync(address.userFolder, { recursive: true, force: true });
	fs.rmSync(FOLDER, { recursive: true, force: true });
}

/** Whether the process `pid` runs n8n (its command line, from Linux /proc). */
function isN8n(pid: number): boolean {
	try {
		return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('n8n');
	} catch {
		return false; // gone
	}
}
