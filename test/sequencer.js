/**
 * Orders the suites: the fast ones first, the real-n8n suites (test/suites/e2e) last, each group
 * as jest's own sequencer orders it (failed first, then slowest first). When the run includes
 * real-n8n suites it says so to head-start.ts (jest sorts before its globalSetup runs, in the
 * same process), which then provisions n8n while the fast suites run.
 */
const Sequencer = require('@jest/test-sequencer').default;

const isEndToEnd = (test) => /[\\/]suites[\\/]e2e[\\/]/.test(test.path);

class EndToEndLast extends Sequencer {
	async sort(tests) {
		const sorted = await super.sort(tests);
		// The compatibility smoke test last: its other n8n versions are provisioned meanwhile.
		const isCompat = (test) => /compat\.e2e/.test(test.path);
		// The random lifecycles first: they time nothing, so they run well while provisioning may still load the machine.
		const isRandom = (test) => /lifecycle\.random\.e2e/.test(test.path);
		const endToEnd = [
			...sorted.filter(isRandom),
			...sorted.filter((test) => isEndToEnd(test) && !isCompat(test) && !isRandom(test)),
			...sorted.filter(isCompat),
		];
		process.env.STACKS_HOOKS_E2E_SUITES = endToEnd.map((test) => test.path).join('\n');
		return [...sorted.filter((test) => !isEndToEnd(test)), ...endToEnd];
	}
}

module.exports = EndToEndLast;
