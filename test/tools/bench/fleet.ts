/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 8, row 8l: a fleet of triggers on one account through a restart of n8n. Ten workflows (the
 * beta's limit of hooks per account), each the trigger example with a hook of its own, in one n8n
 * (regular mode) against an emulator that holds the account to the free tier's 100 requests per
 * window, the window scaled from a minute down to `FLEET.windowMs` (the outage scaled with it: what is
 * measured is the number of windows, not seconds). n8n is stopped, `FLEET.outageBlocks` blocks matching every
 * hook are mined (the service gives up on the deliveries and interrupts every hook), and n8n is started
 * again with no user action. Measured: the time from n8n ready until every matching block reached
 * every workflow, against the floor, each missed height and the reorganisation margin evaluated once
 * at half the limit (the other half is kept for everything else the account does: pacing.ts); requests answered 429; activations
 * that failed; hooks per workflow afterwards. A block every `FLEET.blockMs` meanwhile: the chain moves on.
 */
import { setTimeout as sleep } from 'timers/promises';

import { EXAMPLE_SENDER } from '../../support/examples';
import { startStack } from '../../support/n8n/stack';
import { addTrigger, API_KEY, chainOn, SECRET, type Watch } from './topologies';
import { REORG_MARGIN } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/gapState';
import { type Row, verdict } from './util';

/**
 * The set-up: ten triggers (the beta's hook limit), the emulator's limit at 100 requests per 10 s (the free tier's
 * 100 a minute, scaled down), n8n stopped for 30 blocks; a block every 2 s (Stacks makes one every few seconds: ten
 * hooks' live deliveries and the replays stay within what one n8n answers on two cores); the check every 12 s (a
 * stream is taken to be idle after half an interval without a delivery, healthCheck/plan.ts, and with ten workflows'
 * deliveries through one n8n a hook's can be seconds apart while its stream is behind; the catch-up's pace is set by
 * the rate-limit windows, not by the interval). Within `target` of the floor: the catch-up spends its share of every
 * window, and no window is lost to a 429 or a wait.
 */
const FLEET = { hooks: 10, limit: 100, windowMs: 10_000, outageBlocks: 30, blockMs: 2_000, checkMinutes: 0.2, target: 1.5 };

export async function fleetRows(log: (msg: string) => void, hooks = FLEET.hooks): Promise<Row[]> {
	const stack = await startStack({
		apiKey: API_KEY,
		consumerSecret: SECRET,
		credentialName: 'Stacks Hooks API',
		// The service gives up on a delivery after a few seconds of retries, and interrupts the hook.
		emulator: { rateLimit: { limit: FLEET.limit, windowMs: FLEET.windowMs }, retryDelaysMs: [250, 500, 1000], interruptAfterFailures: 3 },
	});
	try {
		const { emu, n8n } = stack;
		const { mine, tip } = chainOn(emu, 800_000);
		const workflows: Watch[] = [];
		for (let i = 0; i < hooks; i++) workflows.push(await addTrigger(n8n.api, stack.credential, 1, `Bench fleet ${i + 1}`, { healthCheckMinutes: FLEET.checkMinutes }));
		const hooksOf = (hookName: string) => emu.hooks().filter((hook) => hook.definition.name === hookName);
		const delivered = (uuid: string) => new Set(emu.deliveries.filter((report) => report.hookUuid === uuid && report.status === 200).map((report) => report.blockHeight));
		// Every hook delivering: a few blocks, all delivered.
		for (let i = 0; i < 5; i++) {
			await mine(EXAMPLE_SENDER);
			await sleep(FLEET.blockMs);
		}
		log(`part 8: ${hooks} triggers on one account, n8n stopped for ${FLEET.outageBlocks} blocks`);
		await n8n.stop();
		const outage: number[] = [];
		// Not awaited: a block's delivery reports come after the service's retries (or the replays queued before it).
		for (let i = 0; i < FLEET.outageBlocks; i++) {
			void mine(EXAMPLE_SENDER);
			outage.push(tip());
			await sleep(200);
		}
		// Every hook interrupted: the service gave up on it.
		for (const deadline = Date.now() + 30_000; emu.hooks().some((hook) => hook.status.status !== 'interrupted') && Date.now() < deadline; ) await sleep(250);
		const since = emu.requests.length;
		const restartedAt = Date.now();
		const restart = n8n.restart();
		// The chain moves on while n8n starts and catches up.
		const minedAt = new Map<number, number>();
		let ready: number | undefined;
		void restart.then(() => (ready = Date.now()));
		const missedOf = (uuid: string) => {
			// What the service never evaluated for the hook: the outage, and what was mined until n8n enabled it again.
			const enabledAt = emu.requests.slice(since).find((r) => r.method === 'PATCH' && r.path.endsWith(`/me/${uuid}/enabled`))?.at ?? Date.now();
			return [...outage, ...[...minedAt].filter(([, at]) => at < enabledAt).map(([h]) => h)];
		};
		const done = () => ready !== undefined && workflows.every(({ hookName }) => hooksOf(hookName).length === 1 && missedOf(hooksOf(hookName)[0].uuid).every((h) => delivered(hooksOf(hookName)[0].uuid).has(h)));
		for (const deadline = Date.now() + 10 * 60_000; !done() && Date.now() < deadline; ) {
			void mine(EXAMPLE_SENDER);
			minedAt.set(tip(), Date.now());
			await sleep(FLEET.blockMs);
		}
		await restart;
		const caughtUp = done();
		const doneAt = Date.now();
		const requests = emu.requests.slice(since).filter((r) => !r.path.startsWith('/_emulator'));
		const limited = requests.filter((r) => r.status === 429).length;
		const evaluations = requests.filter((r) => r.path.endsWith('/evaluate')).length;
		const missed = workflows.reduce((sum, { hookName }) => sum + missedOf(hooksOf(hookName)[0]?.uuid ?? '').length, 0);
		const active = await Promise.all(workflows.map(async ({ workflowId }) => (await n8n.api.getWorkflow(workflowId)).active === true));
		const failedActivations = active.filter((on) => !on).length + (n8n.logs().match(/could not be activated|activation.*(fail|error)/gi)?.length ?? 0);
		const extraHooks = workflows.reduce((sum, { hookName }) => sum + Math.max(0, hooksOf(hookName).length - 1), 0);
		// The floor (docs/nothing-missed.md): every missed height evaluated once, and the reorganisation margin, at half of each window.
		const floorMs = ((missed + REORG_MARGIN * hooks) / (FLEET.limit / 2)) * FLEET.windowMs;
		const tookMs = doneAt - (ready ?? restartedAt);
		const ratio = tookMs / floorMs;
		const correct = caughtUp && limited === 0 && failedActivations === 0 && extraHooks === 0;
		if (!correct || ratio > FLEET.target) {
			// What the first hook's trigger said and was replayed, to read why.
			const first = hooksOf(workflows[0].hookName)[0];
			const evaluated = requests.filter((r) => first && r.path.endsWith(`/me/${first.uuid}/evaluate`)).map((r) => (r.body as { block_height?: unknown }).block_height);
			log(`part 8 (8l off target): ${workflows[0].hookName}: missed ${JSON.stringify(first ? missedOf(first.uuid) : [])}; evaluated ${JSON.stringify(evaluated)}\n${n8n.logs().split('\n').filter((line) => line.includes(`"Bench: ${workflows[0].hookName}"`)).join('\n')}`);
		}
		return [
			{
				id: '8l',
				what: `${hooks} triggers on one account, n8n stopped for ${FLEET.outageBlocks} blocks and started again: time until every workflow has every block`,
				figure: caughtUp ? `${(tookMs / 1000).toFixed(1)} s` : `not caught up in ${(tookMs / 1000).toFixed(0)} s`,
				reference: `${(floorMs / 1000).toFixed(1)} s: (${missed} missed heights + ${REORG_MARGIN} a hook) at ${FLEET.limit / 2} per ${FLEET.windowMs / 1000} s`,
				ratio,
				target: `≤ ${FLEET.target}×; 0 × 429, 0 activations failed`,
				verdict: correct ? verdict(ratio <= FLEET.target) : 'FAIL',
				raw: `the emulator at ${FLEET.limit} requests per ${FLEET.windowMs / 1000} s (the free tier's 100 a minute, the window scaled down ${60_000 / FLEET.windowMs}×: the figure counts windows); from n8n ready (${(((ready ?? restartedAt) - restartedAt) / 1000).toFixed(1)} s after the restart began): ${requests.length} requests, ${evaluations} evaluations for ${missed} missed heights (${(evaluations / Math.max(1, missed)).toFixed(2)} a height), ${limited} answered 429, ${failedActivations} activations failed, ${extraHooks} extra hooks, ${active.filter(Boolean).length}/${hooks} workflows active`,
			},
		];
	} finally {
		await stack.close();
	}
}
