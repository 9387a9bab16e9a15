/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (README, Development) */
/**
 * jest's globalSetup: when the run includes real-n8n suites (sequencer.js puts them last and
 * names them), starts what they need without waiting for it: the selected n8n's host (2-4 minutes
 * on a fresh machine), for the compatibility smoke test the other versions' hosts at the same
 * time, and, for the queue-mode suite, Redis and PostgreSQL. The fast suites run
 * meanwhile. Each suite still asks for the same things and waits for whatever is unfinished (the
 * provisioning lock, apt's lock), so this only saves time: if it fails, the suite that needs it
 * tries again and reports the error.
 */
import { ensureHost } from './support/n8n/hosts/provision';
import { N8N_VERSIONS, selectedN8n } from './support/n8n/hosts/versions';
import { ensureServers } from './support/n8n/servers';

export default function headStart(): void {
	const suites = (process.env.STACKS_HOOKS_E2E_SUITES ?? '').split('\n').filter(Boolean);
	if (suites.length === 0) return;
	const log = (what: string) => (msg: string) => console.log(`[head start: ${what}] ${msg}`);
	const quiet = (what: string) => (error: unknown) => console.log(`[head start: ${what}] failed; the suites will try again: ${(error as Error).message.split('\n')[0]}`);
	const selected = selectedN8n();
	const others = suites.some((suite) => /compat\.e2e/.test(suite)) ? N8N_VERSIONS.filter((entry) => entry.version !== selected) : [];
	// All at once, while the fast suites run: an install still going when the real-n8n suites
	// start loads the machine under their timed cases (a CI run failed the trigger suite's
	// "1,000 wrong-secret posts in a minute" that way).
	for (const version of [selected, ...others.map((entry) => entry.version)]) {
		void ensureHost(version, log(`n8n ${version} host`)).catch(quiet(`n8n ${version} host`));
	}
	if (suites.some((suite) => /queue/.test(suite))) void ensureServers(log('Redis and PostgreSQL')).catch(quiet('Redis and PostgreSQL'));
}
