/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * jest's globalSetup: when the run includes real-n8n suites (sequencer.js orders and names
 * them), starts installing what they need (test/support/installs.ts) without waiting for it, in
 * jest's own process while the test files run in the workers. Under `npm test` the same installs
 * are already under way in a process of their own; this then only waits on their locks.
 */
import { installForSuites } from './support/installs';

export default function headStart(): void {
	const suites = (process.env.STACKS_HOOKS_E2E_SUITES ?? '').split('\n').filter(Boolean);
	void installForSuites(suites, (what, msg) => console.log(`[head start: ${what}] ${msg}`));
}
