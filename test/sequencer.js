/**
 * Orders the suites. The real-n8n suites (test/suites/e2e) wait for the n8n host, whose install
 * (test/support/installs.ts, minutes on a fresh machine) is what a run waits on longest; the fast
 * suites need nothing installed. So the longest real-n8n suite comes first: it waits on the install's
 * lock in one worker and starts the moment the host is ready. The fast suites follow in the other
 * worker, meanwhile, with what CPU the install leaves them (npm test runs jest at nice 5, the install at
 * the default priority), then the other real-n8n suites. Within each group, the ranks below come first,
 * then jest's own order (failed first, then slowest first). When the run includes real-n8n suites it
 * says so to head-start.ts (jest sorts before its globalSetup runs, in the same process).
 */
const Sequencer = require('@jest/test-sequencer').default;

const isEndToEnd = (test) => /[\\/]suites[\\/]e2e[\\/]/.test(test.path);

/**
 * A comparator putting tests in the order of `names` (a test is named by its file's end: name + suffix);
 * a test not named ranks `unnamed`. Array sort is stable, so equal ranks keep jest's order.
 */
const byRank = (names, suffix, unnamed) => {
	const rank = (test) => {
		const index = names.findIndex((name) => test.path.endsWith(`${name}${suffix}`));
		return index < 0 ? unnamed : index;
	};
	return (a, b) => rank(a) - rank(b);
};

class HostWaitersFirst extends Sequencer {
	async sort(tests) {
		const sorted = await super.sort(tests);
		// Two workers share the real-n8n suites (jest.config.js): the longest first, so that the two lanes
		// end together (the first waits for the host, above); the compatibility smoke test last, as it
		// needs the other n8n versions' hosts, installed after the default one. The order is by the seconds
		// each took in a cold fresh-clone run (its timing table, 2026-12-06): queue 363, gaps 344,
		// trigger 257, record 211, examples 172, lifecycle.random 79, deliveries 48, install 46, compat 28; memory,
		// added since, takes about a minute.
		// Longest first, each lane taking the next when it is free, ends the lanes within a short suite of
		// each other; the order before (trigger after examples) left one lane 95 s longer than the other.
		const ORDER = ['queue', 'gaps', 'trigger', 'record', 'examples', 'lifecycle.random', 'memory', 'deliveries', 'install', 'compat'];
		const endToEnd = sorted.filter(isEndToEnd).sort(byRank(ORDER, '.e2e.test.ts', ORDER.indexOf('trigger')));
		process.env.STACKS_HOOKS_E2E_SUITES = endToEnd.map((test) => test.path).join('\n');
		// The fast suites that take longest first (on a fresh clone jest has no timings yet and goes by
		// file size): the short ones then even out the two lanes.
		const SLOW_FIRST = ['deliveries.property', 'lifecycle.property', 'stacksHooksTrigger', 'transport', 'hookHealth', 'oldestN8n', 'eventItems.property', 'itemIds.property', 'gapPlan.property', 'verify'];
		const fast = sorted.filter((test) => !isEndToEnd(test)).sort(byRank(SLOW_FIRST, '.test.ts', SLOW_FIRST.length));
		// One of jest.config.js's two workers waits for the host with the longest real-n8n suite; the other runs the
		// fast suites beside the install. (With both waiting, the fast suites ran only once the host was ready,
		// beside queue mode's five n8n processes: 410 s of a lane, for 176 s of CPU.)
		const WAITING_FOR_THE_HOST = 1;
		return [...endToEnd.slice(0, WAITING_FOR_THE_HOST), ...fast, ...endToEnd.slice(WAITING_FOR_THE_HOST)];
	}
}

module.exports = HostWaitersFirst;
