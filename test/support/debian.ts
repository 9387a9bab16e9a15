/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Debian's packages the tests need (Redis and PostgreSQL for queue mode, Chromium for the browser
 * check), installed with apt-get when missing. One process at a time installs, under a lock shared by
 * every process of the run (the background installs of `npm test`, jest's head start, each jest
 * worker): apt-get refuses to run beside another apt-get rather than wait.
 */
import * as os from 'os';
import * as path from 'path';

import { acquireLock } from './crossProcessLock';
import { run, runError } from './n8n/process';
import { recordTiming } from './timings';

export interface DebianPackage {
	/** Debian's package name. */
	name: string;
	/** Whether the machine already has it (a file it installs exists). */
	installed: () => boolean;
	/** Install its recommended packages too (Chromium's fonts, for readable screenshots). */
	withRecommends?: boolean;
}

const LOCK_DIR = path.join(os.tmpdir(), 'stacks-hooks-apt.lock');

/** Installs those of `packages` the machine lacks (as root: apt-get; `apt-get update` first when an install fails). */
export async function ensureDebianPackages(packages: DebianPackage[], log: (msg: string) => void): Promise<void> {
	if (packages.every((pkg) => pkg.installed())) return;
	const names = packages.map((pkg) => pkg.name).join(' ');
	const whatToDo = `Install them by hand (as root: apt-get install -y ${names}) and run again.`;
	if (process.getuid?.() !== 0) throw new Error(`The tests need Debian's ${names}, which are not all installed, and only root can install them. ${whatToDo}`);
	const release = await acquireLock(LOCK_DIR, log);
	try {
		const missing = packages.filter((pkg) => !pkg.installed()); // another process may have installed them meanwhile
		if (missing.length === 0) return;
		const started = Date.now();
		log(`installing ${missing.map((pkg) => pkg.name).join(', ')} from Debian's packages (about 15-90 s)`);
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		const apt = (args: string[]) => run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', ...args], { cwd: os.tmpdir(), env, timeoutMs: 15 * 60_000 });
		const install = async () => {
			for (const withRecommends of [false, true]) {
				const group = missing.filter((pkg) => !!pkg.withRecommends === withRecommends).map((pkg) => pkg.name);
				if (group.length === 0) continue;
				const result = await apt(['install', '-y', ...(withRecommends ? [] : ['--no-install-recommends']), ...group]);
				if (result.code !== 0) return result;
			}
			return undefined;
		};
		let failed = await install();
		if (failed) {
			// A fresh machine may not have read its package lists yet.
			const update = await apt(['update']);
			if (update.code !== 0) throw runError('apt-get update', update, whatToDo);
			failed = await install();
		}
		if (failed) throw runError(`apt-get install ${missing.map((pkg) => pkg.name).join(' ')}`, failed, whatToDo);
		const stillMissing = missing.filter((pkg) => !pkg.installed());
		if (stillMissing.length > 0) throw new Error(`apt-get installed ${stillMissing.map((pkg) => pkg.name).join(' ')}, yet the files the tests use are missing.`);
		recordTiming('install', `Debian's ${missing.map((pkg) => pkg.name).join(', ')}`, started);
		log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
	} finally {
		release();
	}
}
