/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 8, row 8m: what catching up after an n8n restart costs where n8n cannot reach its own public
 * address (regular mode): the check keeps its state at the trigger's webhook where n8n takes the
 * deliveries (ownWebhook.ts), so the restarted n8n knows what arrived before (issue #38). The hook is as users have them, older than FIRST_WINDOW_MAX (aged
 * with blocks that match nothing), and delivering; n8n is killed, `OUTAGE_BLOCKS` matching blocks are
 * mined (the service fails their deliveries and interrupts the hook), n8n is started again, and it is
 * killed once more right after it is up, before its first check (a crash loop), then started. Measured:
 * evaluations per missed height against one (the gap starts at the last height the kept state knew
 * complete, less the reorganisation margin); never an unknown gap start (gapStartUnknown, the Error Workflow); time from
 * the last start until every matching block reached the workflow. A matching block every 300 ms meanwhile.
 */
import { setTimeout as sleep } from 'timers/promises';

import { EXAMPLE_SENDER } from '../../support/examples';
import { startStack, UNREACHABLE_PUBLIC_URL } from '../../support/n8n/stack';
import { until } from '../../support/gaps';
import { addTrigger, API_KEY, enabledAgainAt, RECIPIENT, SECRET } from './topologies';
import { FIRST_WINDOW_MAX, REORG_MARGIN } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/gapState';
import { type Row, verdict } from './util';

const OUTAGE_BLOCKS = 100;
const OTHER_SENDER = 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC';

export async function restartRows(log: (msg: string) => void): Promise<Row[]> {
	// No retries: three failed deliveries in a row and the service interrupts the hook.
	const stack = await startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks API', emulator: { rateLimit: null, interruptAfterFailures: 3 }, publicUrl: UNREACHABLE_PUBLIC_URL });
	try {
		const { emu, n8n } = stack;
		const hookName = 'Bench restart';
		const { workflowId } = await addTrigger(n8n.api, stack.credential, 2, hookName);
		const hook = () => emu.hooks().find((candidate) => candidate.definition.name === hookName)!;
		let height = 800_000;
		const mined = new Map<number, number>();
		const mine = async (sender = EXAMPLE_SENDER) => {
			mined.set(++height, Date.now());
			return await emu.injectBlock({ height, transactions: [{ kind: 'stx_transfer', sender, recipient: RECIPIENT, amount: height }] });
		};
		log(`part 8 (8m): ageing the hook past ${FIRST_WINDOW_MAX} blocks`);
		for (let i = 0; i < FIRST_WINDOW_MAX + 50; i++) await mine(OTHER_SENDER);
		const matching = () => [...mined.keys()].filter((h) => h > 800_000 + FIRST_WINDOW_MAX + 50);
		const uuid = hook().uuid;
		const delivered = () => new Set(emu.deliveries.filter((report) => report.hookUuid === uuid && report.status === 200).map((report) => report.blockHeight));
		for (let i = 0; i < 5; i++) await mine();
		for (const deadline = Date.now() + 20_000; matching().some((h) => !delivered().has(h)) && Date.now() < deadline; ) await sleep(200);
		// A check has heard the trigger's webhook where n8n took those deliveries, and kept its state there (as a hook that has
		// run a while has): killed before any check, n8n would start with nothing kept, as on the first start of this version.
		await until('a check keeping its state where n8n takes the deliveries', () => n8n.logs().includes("calls the trigger's webhook where this n8n process takes its deliveries"), 60_000);
		const aged = hook().status.evaluated_block_count ?? 0;

		log('part 8 (8m): n8n killed, the outage mined');
		await n8n.crash();
		const downAt = Date.now();
		for (let i = 0; i < OUTAGE_BLOCKS; i++) await mine();
		const interrupted = hook().status.status === 'interrupted';
		await n8n.restart();
		// Once activation has found the hook stopped (left to the first check, 5 s after), and a second for n8n to finish it:
		// killed right after it was ready, the next start waited 2 minutes before activating the workflow (n8n 2.x's publication lease).
		await until('the hook found stopped on activation', () => n8n.logs().includes(`found hook ${uuid} stopped on n8n's start`), 60_000);
		await sleep(1_000);
		await n8n.crash();
		await n8n.restart();
		const upAt = Date.now();
		const since = emu.requests.length;
		// Missed: the matching heights mined from the kill until the check enabled the hook again (the service evaluated none of
		// them, or failed their deliveries).
		const enabledAt = () => enabledAgainAt(emu, uuid, upAt);
		const missed = () => matching().filter((h) => (mined.get(h) ?? 0) >= downAt && (mined.get(h) ?? 0) < (enabledAt() ?? Date.now()));
		for (const deadline = Date.now() + 150_000; (enabledAt() === undefined || missed().some((h) => !delivered().has(h))) && Date.now() < deadline; await sleep(300)) await mine();
		const gap = missed();
		const caughtUp = enabledAt() !== undefined && gap.every((h) => delivered().has(h));
		const seconds = (Date.now() - upAt) / 1000;
		const evaluations = emu.requests.slice(since).filter((request) => request.path.endsWith(`/me/${uuid}/evaluate`)).length;
		const perMissed = evaluations / Math.max(1, gap.length);
		// The alerts: failed executions of the workflow (n8n 2.x, which also logs each at info level), else error lines in n8n's log (1.x).
		const failed = await n8n.api.executions({ workflowId, status: 'error', includeData: true });
		const saidIn = (texts: string[]) => texts.filter((text) => text.includes('cannot tell where the gap began')).length;
		const said = saidIn(failed.map((execution) => JSON.stringify(execution.data?.resultData?.error ?? {}))) || saidIn(n8n.logs().split('\n'));
		const lost = gap.filter((h) => !delivered().has(h)).length;
		return [
			{
				id: '8m',
				what: `catch-up after an n8n restart (and one more before its first check), regular mode, n8n's address unreachable, a hook ${aged} blocks old, ${OUTAGE_BLOCKS} matching blocks mined while down: evaluations per missed height`,
				figure: caughtUp ? `${evaluations} evaluations for ${gap.length} missed heights` : `${lost} of ${gap.length} not caught up in ${seconds.toFixed(0)} s`,
				reference: `1 per missed height (+ ${REORG_MARGIN} of reorganisation margin)`,
				ratio: perMissed,
				target: '≤ 1.15×',
				verdict: caughtUp && said === 0 ? verdict(perMissed <= 1.15) : 'FAIL',
				raw: `missed: the ${gap.length} matching heights mined from the kill until the first check after the last start enabled the hook; hook interrupted while n8n was down: ${interrupted}; caught up ${seconds.toFixed(1)} s after the last start; "cannot tell where the gap began" said ${said} time(s) (expected: never, the check kept what arrived)`,
			},
		];
	} finally {
		await stack.close();
	}
}
