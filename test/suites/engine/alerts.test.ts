/**
 * The trigger's incidents (nodes/StacksHooksTrigger/healthCheck/planning/incidents.ts), check by check: each begins once,
 * however many checks see it; it ends only once gone for GONE_CHECKS checks in a row; a gap over the
 * limit is said once and never "resolved"; a healthy check says nothing.
 */
import { type AlertState, assess, type CheckFacts, emptyAlerts, FAILING_TIMES, type GapOutcome, GONE_CHECKS, INTERRUPTED_CHECKS, type IncidentKind } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/incidents';

const MINUTE = 60_000;
const healthyGaps: GapOutcome = { found: [], replayed: 0, left: 0, received: { taken: [] } };
const facts = (over: Partial<CheckFacts> = {}): CheckFacts => ({ now: 100 * MINUTE, hookId: 'h1', wasInterrupted: false, lastEvaluatedAt: 100 * MINUTE - 5_000, lastEvaluatedHeight: 7, stallMinutes: 30, gaps: healthyGaps, ...over });

/** Runs the checks in turn; the incidents that began and ended at each. */
function run(checks: CheckFacts[]): { began: IncidentKind[][]; ended: IncidentKind[][]; state: AlertState } {
	let state = emptyAlerts();
	const began: IncidentKind[][] = [];
	const ended: IncidentKind[][] = [];
	for (const check of checks) {
		const result = assess(state, check);
		state = result.state;
		began.push(result.began);
		ended.push(result.ended);
	}
	return { began, ended, state };
}

describe('incidents', () => {
	it('says nothing while the hook is healthy', () => {
		const { began, ended } = run(Array.from({ length: 10 }, () => facts()));
		expect(began.flat()).toEqual([]);
		expect(ended.flat()).toEqual([]);
	});

	it('begins a stall once, however many checks see it, and ends it once it has been gone long enough', () => {
		const stalled = facts({ lastEvaluatedAt: 100 * MINUTE - 31 * MINUTE });
		const { began, ended, state } = run([facts(), stalled, stalled, stalled, facts(), facts(), ...Array.from({ length: GONE_CHECKS - 2 }, () => facts()), facts()]);
		expect(began.flat()).toEqual(['notEvaluating']);
		expect(began[1]).toEqual(['notEvaluating']);
		expect(ended.flat()).toEqual(['notEvaluating']);
		expect(ended.findIndex((kinds) => kinds.length > 0)).toBe(3 + GONE_CHECKS);
		expect(state.incidents).toEqual({});
	});

	it('names the hook, the block and what to do for a delivery that keeps failing, and does not end it in the instant between two deliveries', () => {
		const repeating = (times: number): CheckFacts =>
			facts({ gaps: { ...healthyGaps, received: { taken: [], repeating: { height: 42, hash: '0xabc', direction: 'apply', times, since: 1 } } } });
		const { began, ended, state } = run([repeating(FAILING_TIMES - 1), repeating(FAILING_TIMES), facts(), repeating(FAILING_TIMES + 3), facts()]);
		expect(began.flat()).toEqual(['deliveryFailing']);
		expect(ended.flat()).toEqual([]);
		expect(state.incidents.deliveryFailing?.what).toBe(
			`n8n took the delivery of block 42 (0xabc, apply) of hook h1 ${FAILING_TIMES + 3} times in a row: the service did not get an answer it accepts, and the hook's later blocks wait behind it.`,
		);
		expect(state.incidents.deliveryFailing?.todo).toMatch(/If the workflow fails on that block .*fix what fails.*If it does not fail, n8n.s answers do not reach the service/);
	});

	it('counts interruptions in a row, not in all', () => {
		const interrupted = facts({ wasInterrupted: true });
		const twice = run([interrupted, interrupted, facts(), interrupted, interrupted]);
		expect(twice.began.flat()).toEqual([]);
		const enough = run(Array.from({ length: INTERRUPTED_CHECKS }, () => interrupted));
		expect(enough.began.flat()).toEqual(['interruptedAgain']);
	});

	it('says gaps over the limit once while they keep coming, with the heights to backfill, and when they stop', () => {
		const over = facts({ gaps: { ...healthyGaps, overLimit: [100, 180] } });
		const { began, ended, state } = run([over, facts(), over, facts(), ...Array.from({ length: GONE_CHECKS }, () => facts())]);
		expect(began.flat()).toEqual(['gapOverLimit']);
		expect(ended.flat()).toEqual(['gapOverLimit']);
		expect(state.incidents).toEqual({});
		const said = assess(emptyAlerts(), over).state.incidents.gapOverLimit!;
		expect(said.todo).toBe('Backfill heights 100-180 with the Stacks Hooks node (Hook > Backfill, at most 1,000 heights per item), or raise the trigger\'s Catch-Up Limit.');
	});

	it('turns the stall alert off at 0 minutes', () => {
		expect(run([facts({ stallMinutes: 0, lastEvaluatedAt: 0 })]).began.flat()).toEqual([]);
	});
});
