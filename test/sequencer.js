/**
 * Orders the suites: the fast ones first, the real-n8n suites (test/suites/e2e) last, each group
 * as jest's own sequencer orders it (failed first, then slowest first). When the run includes
 * real-n8n suites it says so to head-start.ts (jest sorts before its globalSetup runs, in the
 * same process), which then installs what they need while the fast suites run.
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

class EndToEndLast extends Sequencer {
	async sort(tests) {
		const sorted = await super.sort(tests);
		// Two workers share the real-n8n suites (jest.config.js): the longest first, so that the two lanes
		// end together; the compatibility smoke test last, as it needs the other n8n versions' hosts,
		// installed after the default one.
		const ORDER = ['queue', 'lifecycle.random', 'record', 'gaps', 'examples', 'trigger', 'deliveries', 'install', 'compat'];
		const endToEnd = sorted.filter(isEndToEnd).sort(byRank(ORDER, '.e2e.test.ts', ORDER.indexOf('trigger')));
		process.env.STACKS_HOOKS_E2E_SUITES = endToEnd.map((test) => test.path).join('\n');
		// The fast suites that take longest first (on a fresh clone jest has no timings yet and goes by
		// file size), so that they are done before the first real-n8n suite can start, rather than share
		// the machine with it.
		const SLOW_FIRST = ['deliveries.property', 'lifecycle.property', 'stacksHooksTrigger', 'transport', 'hookHealth', 'oldestN8n', 'eventItems.property', 'itemIds.property', 'gapPlan.property', 'verify'];
		const fast = sorted.filter((test) => !isEndToEnd(test)).sort(byRank(SLOW_FIRST, '.test.ts', SLOW_FIRST.length));
		return [...fast, ...endToEnd];
	}
}

module.exports = EndToEndLast;
