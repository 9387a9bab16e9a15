/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (README, Development) */
/**
 * jest's globalSetup: when the run includes real-n8n suites (sequencer.js puts them last and
 * names them), starts what they need without waiting for it: the selected n8n's host (2-4 minutes
 * on a fresh machine), then, for the compatibility smoke test, the other versions' hosts one
 * after another, and, for the queue-mode suite, Redis and PostgreSQL. The fast suites run
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
	// One install at a time (the fast suites' timed engine cases failed under three at once); the
	// sequencer runs the untimed real-n8n suites first, so these are done before the timed ones.
	void others.reduce(
		(previous, entry) => previous.then(() => ensureHost(entry.version, log(`n8n ${entry.version} host`)).then(() => undefined, quiet(`n8n ${entry.version} host`))),
		ensureHost(selected, log(`n8n ${selected} host`)).then(() => undefined, quiet(`n8n ${selected} host`)),
	);
	if (suites.some((suite) => /queue/.test(suite))) void ensureServers(log('Redis and PostgreSQL')).catch(quiet('Redis and PostgreSQL'));
}
