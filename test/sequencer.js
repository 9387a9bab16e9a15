/**
 * Orders the suites: the fast ones first, the real-n8n suites (test/suites/e2e) last, each group
 * as jest's own sequencer orders it (failed first, then slowest first). When the run includes
 * real-n8n suites it says so to head-start.ts (jest sorts before its globalSetup runs, in the
 * same process), which then installs what they need while the fast suites run.
 */
const Sequencer = require('@jest/test-sequencer').default;

const isEndToEnd = (test) => /[\\/]suites[\\/]e2e[\\/]/.test(test.path);

class EndToEndLast extends Sequencer {
	async sort(tests) {
		const sorted = await super.sort(tests);
		// Two workers share the real-n8n suites (jest.config.js): the longest first, so that the two lanes
		// end together; the compatibility smoke test last, as it needs the other n8n versions' hosts,
		// installed after the default one.
		const ORDER = ['lifecycle.random', 'queue', 'examples', 'trigger', 'deliveries', 'harness', 'install', 'compat'];
		const rank = (test) => {
			const index = ORDER.findIndex((name) => test.path.endsWith(`${name}.e2e.test.ts`));
			return index < 0 ? ORDER.indexOf('trigger') : index;
		};
		const endToEnd = sorted.filter(isEndToEnd).sort((a, b) => rank(a) - rank(b));
		process.env.STACKS_HOOKS_E2E_SUITES = endToEnd.map((test) => test.path).join('\n');
		return [...sorted.filter((test) => !isEndToEnd(test)), ...endToEnd];
	}
}

module.exports = EndToEndLast;
