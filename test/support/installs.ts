/**
 * What the real-n8n suites of a run need installed, started before they run so that they do not
 * wait for it: the selected n8n's host (2-6 minutes on a fresh machine) with sqlite3 compiled beside
 * its download, Debian's Redis and PostgreSQL (queue mode, the recipes' ledger) and Chromium (the
 * browser check) in one apt-get run beside it, then the hosts of the compatibility smoke test, one
 * after another (never more than two installs at once: the timed cases failed under three), at the lowest
 * CPU priority: the real-n8n suites are running by then, and the smoke test that needs them runs last.
 *
 * `npm test` runs this in a process of its own from its first seconds (test/tools/test/run.ts), and
 * jest's head start (test/head-start.ts) again when jest runs alone. Each suite still asks for what
 * it needs: a cross-process lock makes it wait for an install under way, and a failed install is
 * tried again by the suite that needs it, which then reports the error.
 */
import { CHROMIUM_PACKAGE } from './browser';
import { type DebianPackage, ensureDebianPackages } from './debian';
import { buildSqlite, ensureHost, installHostTree } from './n8n/hosts/provision';
import { selectedN8n, smokeVersions } from './n8n/hosts/versions';
import { SERVER_PACKAGES } from './n8n/servers';

/** Installs what the real-n8n suites at `suites` (paths) need; resolves to the failures, each said once to `log`. */
export async function installForSuites(suites: string[], log: (what: string, msg: string) => void): Promise<string[]> {
	const failures: string[] = [];
	const attempt = async (what: string, work: (say: (msg: string) => void) => Promise<unknown>) => {
		try {
			await work((msg) => log(what, msg));
		} catch (error) {
			const first = (error as Error).message.split('\n')[0];
			failures.push(`${what}: ${first}`);
			log(what, `failed; the suites will try again: ${first}`);
		}
	};
	if (suites.length === 0) return failures;
	const selected = selectedN8n();
	const debian: DebianPackage[] = [
		...(suites.some((suite) => /queue|record|gaps/.test(suite)) ? SERVER_PACKAGES : []),
		...(suites.some((suite) => /examples/.test(suite)) ? [CHROMIUM_PACKAGE] : []),
	];
	const others = suites.some((suite) => /compat\.e2e/.test(suite)) ? smokeVersions() : [];
	// sqlite3 compiled beside the selected host's download (every host copies its N-API binding, provision.ts), then
	// the other hosts' trees one after another.
	const sqlite = attempt('sqlite3 build', (say) => buildSqlite(say));
	const selectedTree = attempt(`n8n ${selected} host`, (say) => installHostTree(selected, say));
	const selectedHost = selectedTree.then(() => attempt(`n8n ${selected} host`, (say) => ensureHost(selected, say)));
	const otherTrees = selectedTree.then(async () => {
		for (const entry of others) await attempt(`n8n ${entry.version} host`, (say) => installHostTree(entry.version, say, true));
	});
	const hosts = Promise.all([selectedHost, otherTrees]).then(async () => {
		for (const entry of others) await attempt(`n8n ${entry.version} host`, (say) => ensureHost(entry.version, say));
	});
	const packages = debian.length ? attempt(`Debian's ${debian.map((pkg) => pkg.name).join(', ')}`, (say) => ensureDebianPackages(debian, say)) : undefined;
	await Promise.all([hosts, packages, sqlite]);
	return failures;
}
