/**
 * Issue #38's plan rule for a hook found stopped (healthCheck/planning/gapPlan.ts, planRepaired): where the gap begins after a
 * restart, for a hook older than FIRST_WINDOW_MAX (no "from its first block" to fall back on), whose activation
 * enabled it before the first check so that its new deliveries are already in.
 */
import { planCheck } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/gapPlan';
import { emptyState, FIRST_WINDOW_MAX, REORG_MARGIN, type TakenDelivery } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/gapState';

const OLD = FIRST_WINDOW_MAX + 1_050;
/** The service's record as activation read it: evaluated up to 951_083, its last match at 951_080. */
const STOP = { height: 951_083, lastMatch: 951_080 };
const stopped = { now: 1, hookId: 'h1', repaired: true, lifeUnknown: true, resumedFrom: { occurrences: 69, evaluated: OLD }, evaluatedHeight: STOP.height, evaluatedCount: OLD, occurrences: 69, idleMs: 30_000 };
/** Delivered after activation brought the hook back: the blocks of the outage were never evaluated, these come after. */
const afterRepair: TakenDelivery[] = [{ a: [[951_140, 'aa']] }, { a: [[951_142, 'bb']] }];
const resumeRead = { ...stopped, now: 2, repaired: false, evaluatedHeight: 951_150, evaluatedCount: OLD + 12, occurrences: 71 };

describe('a hook found stopped after a restart, older than FIRST_WINDOW_MAX', () => {
	it('with nothing kept: replayed from the service\'s last match before it stopped, never from a block delivered after the repair, and said', () => {
		const first = planCheck(emptyState(), { ...stopped, taken: afterRepair, stopRecord: STOP });
		expect(first.state.stopped?.from).toBe(STOP.lastMatch + 1 - REORG_MARGIN);
		const next = planCheck(first.state, { ...resumeRead, taken: afterRepair });
		const found = next.found.find((finding) => finding.kind === 'stopped');
		expect(found).toEqual({ kind: 'stopped', range: [STOP.lastMatch + 1 - REORG_MARGIN, 951_150], unknownStart: { stoppedAt: STOP.height, lastMatch: STOP.lastMatch } });
	});

	it('with the notes the static data kept of what was taken before the stop: from the highest of them, and nothing said', () => {
		const kept: TakenDelivery[] = [{ a: [[951_060, 'cc']] }, { a: [[951_075, 'dd']] }];
		const first = planCheck(emptyState(), { ...stopped, taken: afterRepair, kept, stopRecord: STOP });
		expect(first.state.stopped).toMatchObject({ from: 951_075 });
		expect(first.state.stopped?.unknownStart).toBeUndefined();
		const next = planCheck(first.state, { ...resumeRead, taken: [...kept, ...afterRepair] });
		expect(next.found.filter((finding) => finding.kind === 'stopped')).toEqual([{ kind: 'stopped', range: [951_075, 951_150] }]);
	});
});

describe('a young hook found stopped before any of its blocks reached n8n', () => {
	// Registered at 500_000, one block evaluated (500_001) and its delivery dropped as the hook was paused; 12 heights later
	// the check finds it paused and enables it.
	const paused = { now: 1, hookId: 'h2', repaired: true, resumedFrom: { occurrences: 1, evaluated: 1 }, stopRecord: { height: 500_001, lastMatch: 500_001 }, evaluatedHeight: 500_001, evaluatedCount: 1, occurrences: 1, idleMs: 30_000 };
	const resumed = { ...paused, now: 2, repaired: false, evaluatedHeight: 500_015, evaluatedCount: 3, occurrences: 3, taken: [{ a: [[500_014, 'ee']] }, { a: [[500_015, 'ff']] }] as TakenDelivery[] };

	it('heard by this process since the activation: replayed from its first block as an ordinary gap (nothing taken is known)', () => {
		const first = planCheck(emptyState(), { ...paused, taken: [] });
		const next = planCheck(first.state, resumed);
		expect(next.found.filter((finding) => finding.kind === 'stopped')).toEqual([{ kind: 'stopped', range: [500_000 + 1 - REORG_MARGIN, 500_015] }]);
	});

	it('at the first check after a restart with nothing kept: the same heights, said as taken from its first block for want of a record', () => {
		const first = planCheck(emptyState(), { ...paused, taken: [], lifeUnknown: true });
		const next = planCheck(first.state, resumed);
		expect(next.found.filter((finding) => finding.kind === 'stopped')).toEqual([{ kind: 'stopped', range: [500_000 + 1 - REORG_MARGIN, 500_015], fromHookStart: true }]);
	});
});
