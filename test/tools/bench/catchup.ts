/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 8, what the trigger's health check and catch-up cost at the service, in a real n8n (regular
 * mode, n8n reaching its own public webhook address) against the emulator, counted from the emulator's
 * request log: requests per check for an idle healthy hook (8a: no match, the chain moving) and for a
 * hook with a steady stream (8b: a matching block every 0.5-1 s, all delivered), each against today's
 * one GET per check, with the alerts raised (topology 1 of topologies.ts, measured as the others are
 * there: 8d to 8k); and the requests and time to catch up after the hook was paused for 100 matching
 * blocks (8c), against the free tier's 100 requests a minute. The check runs every 3 s here; per hour
 * figures are for the default 5-minute interval (12 checks an hour).
 */
import { setTimeout as sleep } from 'timers/promises';

import { EXAMPLE_SENDER } from '../../support/examples';
import { startStack } from '../../support/n8n/stack';
import { addTrigger, API_KEY, CHECK_MS, enabledAgainAt, healthyRows, measureHealthy, RECIPIENT, SECRET } from './topologies';
import { REORG_MARGIN } from '../../../nodes/StacksHooksTrigger/healthCheck/planning/gapState';
import { type Row, verdict } from './util';

const OUTAGE_BLOCKS = 100;
const FREE_TIER_PER_MINUTE = 100;

export async function catchupRows(log: (msg: string) => void): Promise<Row[]> {
	const stack = await startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks API', emulator: { rateLimit: null } });
	try {
		const { emu, n8n } = stack;
		const watch = await addTrigger(n8n.api, stack.credential, 1, 'Bench catch-up');
		const hook = () => emu.hooks().find((candidate) => candidate.definition.name === 'Bench catch-up')!;
		let height = 700_000;
		const mine = (sender = EXAMPLE_SENDER) => emu.injectBlock({ height: ++height, transactions: [{ kind: 'stx_transfer', sender, recipient: RECIPIENT, amount: height }] });
		const apiRequests = () => emu.requests.filter((request) => !request.path.startsWith('/_emulator'));
		const count = (since: number) => {
			const requests = apiRequests().slice(since);
			return { all: requests.length, gets: requests.filter((r) => r.method === 'GET').length, evaluates: requests.filter((r) => r.path.endsWith('/evaluate')).length };
		};
		const [measured] = await measureHealthy({ emu, api: n8n.api, logs: () => n8n.logs(), mine, tip: () => height }, [watch], log, 'topology 1');

		log(`part 8: a pause of ${OUTAGE_BLOCKS} matching blocks`);
		const since = apiRequests().length;
		const minedAt = new Map<number, number>();
		const mineTimed = async () => {
			const at = Date.now();
			const report = mine();
			minedAt.set(height, at);
			return await report;
		};
		const uuid = hook().uuid;
		const pausedAt = Date.now();
		await fetch(`${emu.url}/me/${uuid}/enabled`, { method: 'PATCH', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: false }) });
		for (let i = 0; i < OUTAGE_BLOCKS; i++) void mineTimed();
		const started = Date.now();
		// Caught up: every matching block's height delivered to the workflow, replayed ones included.
		const delivered = () => new Set(emu.deliveries.filter((report) => report.hookUuid === uuid && report.status === 200).map((report) => report.blockHeight));
		// The heights the service never evaluated for the hook: mined from the pause until the trigger enabled it again. Waited
		// for whole: those mined after the paused ones and before the check enabled the hook are missed too.
		const enabledAt = () => enabledAgainAt(emu, uuid, pausedAt);
		const missedNow = () => [...minedAt].filter(([, at]) => at < (enabledAt() ?? Date.now())).map(([h]) => h);
		for (const deadline = Date.now() + 120_000; (enabledAt() === undefined || missedNow().some((h) => !delivered().has(h))) && Date.now() < deadline; ) {
			await mineTimed();
			await sleep(300);
		}
		const missed = missedNow();
		const caughtUp = enabledAt() !== undefined && missed.every((h) => delivered().has(h));
		const seconds = (Date.now() - started) / 1000;
		const outage = count(since);
		const perHeight = new Map<number, number>();
		for (const r of apiRequests().slice(since)) if (r.path.endsWith('/evaluate')) perHeight.set(Number((r.body as { block_height?: unknown }).block_height), (perHeight.get(Number((r.body as { block_height?: unknown }).block_height)) ?? 0) + 1);
		const twice = [...perHeight.values()].filter((times) => times > 1).length;
		const perMissed = outage.evaluates / Math.max(1, missed.length);
		const checksDuring = Math.max(1, Math.round((seconds * 1000) / CHECK_MS));

		return [
			...healthyRows(measured, ['8a', '8b'], log),
			{
				id: '8c',
				what: `catch-up after the hook was paused for ${OUTAGE_BLOCKS} matching blocks: evaluations per missed height`,
				figure: caughtUp ? `${outage.evaluates} evaluations for ${missed.length} missed heights` : `not caught up in ${seconds.toFixed(0)} s`,
				reference: `1 per missed height (+ ${REORG_MARGIN} of reorganisation margin)`,
				ratio: perMissed,
				target: '≤ 1.15×',
				verdict: caughtUp ? verdict(perMissed <= 1.15) : 'FAIL',
				raw: `${outage.evaluates} evaluations (${perHeight.size} heights, ${twice} of them twice or more), ${outage.gets} GET, ${outage.all - outage.gets - outage.evaluates} other, over ${checksDuring} checks in ${seconds.toFixed(1)} s; missed: the ${missed.length} heights mined from the pause until the trigger enabled the hook again; on the free tier the ${outage.all} requests are ${(outage.all / FREE_TIER_PER_MINUTE).toFixed(1)} min of the account's budget`,
			},
		];
	} finally {
		await stack.close();
	}
}
