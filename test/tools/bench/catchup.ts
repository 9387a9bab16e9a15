/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 8, what the trigger's health check and catch-up cost at the service, in a real n8n (regular
 * mode) against the emulator, counted from the emulator's request log: requests per check for an idle
 * healthy hook (8a) and for a hook with a steady stream (8b), each against today's one GET per check;
 * and the requests and time to catch up after the hook was paused for 100 matching blocks (8c),
 * against the free tier's 100 requests a minute. The check runs every 3 s here; per hour figures are
 * for the default 5-minute interval (12 checks an hour).
 */
import { setTimeout as sleep } from 'timers/promises';

import { EXAMPLE_SENDER, loadExample, TRIGGER_TYPE } from '../../support/examples';
import { startStack } from '../../support/n8n/stack';
import { type Row, verdict } from './util';

const API_KEY = 'bench-catchup-key';
const SECRET = 'bench-catchup-secret-0123456789abcdef0123';
const CHECK_MINUTES = 0.05;
const CHECK_MS = CHECK_MINUTES * 60_000;
const CHECKS = 8;
const OUTAGE_BLOCKS = 100;
const CHECKS_PER_HOUR = 12;
const FREE_TIER_PER_MINUTE = 100;

export async function catchupRows(log: (msg: string) => void): Promise<Row[]> {
	const stack = await startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks API', emulator: { rateLimit: null } });
	try {
		const { emu, n8n } = stack;
		const workflow = loadExample('trigger', stack.credential);
		const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE)!;
		trigger.parameters = { ...(trigger.parameters as object), hookName: 'Bench catch-up', options: { healthCheckMinutes: CHECK_MINUTES } };
		const { id } = await n8n.api.createWorkflow(workflow);
		await n8n.api.activate(id);
		const hook = () => emu.hooks().find((candidate) => candidate.definition.name === 'Bench catch-up')!;
		let height = 700_000;
		const mine = () => emu.injectBlock({ height: ++height, transactions: [{ kind: 'stx_transfer', sender: EXAMPLE_SENDER, recipient: 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG', amount: height }] });
		const apiRequests = () => emu.requests.filter((request) => !request.path.startsWith('/_emulator'));
		const count = (since: number) => {
			const requests = apiRequests().slice(since);
			return { all: requests.length, gets: requests.filter((r) => r.method === 'GET').length, evaluates: requests.filter((r) => r.path.endsWith('/evaluate')).length };
		};
		await mine();
		await sleep(2 * CHECK_MS);

		log('part 8: an idle healthy hook');
		let since = apiRequests().length;
		await sleep(CHECKS * CHECK_MS);
		const idle = count(since);

		log('part 8: a steady stream');
		since = apiRequests().length;
		for (const until = Date.now() + CHECKS * CHECK_MS; Date.now() < until; await sleep(300)) await mine();
		await sleep(2 * CHECK_MS);
		const streaming = count(since);

		log(`part 8: a pause of ${OUTAGE_BLOCKS} matching blocks`);
		since = apiRequests().length;
		await fetch(`${emu.url}/me/${hook().uuid}/enabled`, { method: 'PATCH', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: false }) });
		for (let i = 0; i < OUTAGE_BLOCKS; i++) void mine();
		const started = Date.now();
		// Caught up: every matching block's height delivered to the workflow, replayed ones included.
		const missed = new Set(Array.from({ length: OUTAGE_BLOCKS }, (_, i) => height - OUTAGE_BLOCKS + 1 + i));
		const delivered = () => new Set(emu.deliveries.filter((report) => report.hookUuid === hook().uuid && report.status === 200).map((report) => report.blockHeight));
		for (const deadline = Date.now() + 120_000; [...missed].some((h) => !delivered().has(h)) && Date.now() < deadline; ) {
			await mine();
			await sleep(300);
		}
		const caughtUp = [...missed].every((h) => delivered().has(h));
		const seconds = (Date.now() - started) / 1000;
		const outage = count(since);
		const checksDuring = Math.max(1, Math.round((seconds * 1000) / CHECK_MS));

		const perCheck = (c: { all: number }, checks: number) => c.all / checks;
		const idlePerCheck = perCheck(idle, CHECKS);
		const streamPerCheck = perCheck(streaming, CHECKS + 2);
		return [
			{
				id: '8a',
				what: 'health check of an idle healthy hook: requests an hour (5-min interval)',
				figure: `${(idlePerCheck * CHECKS_PER_HOUR).toFixed(1)}/h`,
				reference: `${CHECKS_PER_HOUR}/h (one GET a check, 0.1.0)`,
				ratio: idlePerCheck,
				target: '≤ 1.0×',
				verdict: verdict(idlePerCheck <= 1.0),
				raw: `${idle.all} requests (${idle.gets} GET, ${idle.evaluates} evaluate) in ${CHECKS} checks of ${CHECK_MS / 1000} s`,
			},
			{
				id: '8b',
				what: 'health check of a hook with a steady stream: requests an hour',
				figure: `${(streamPerCheck * CHECKS_PER_HOUR).toFixed(1)}/h`,
				reference: `${CHECKS_PER_HOUR}/h (one GET a check)`,
				ratio: streamPerCheck,
				target: '≤ 1.0×',
				verdict: verdict(streamPerCheck <= 1.0),
				raw: `${streaming.all} requests (${streaming.gets} GET, ${streaming.evaluates} evaluate) in about ${CHECKS + 2} checks, a matching block every 0.3 s`,
			},
			{
				id: '8c',
				what: `catch-up after the hook was paused for ${OUTAGE_BLOCKS} matching blocks`,
				figure: caughtUp ? `${outage.all} requests, ${seconds.toFixed(1)} s` : `not caught up in ${seconds.toFixed(0)} s`,
				reference: `${FREE_TIER_PER_MINUTE} requests/min (free tier)`,
				ratio: outage.all / FREE_TIER_PER_MINUTE,
				target: 'caught up',
				verdict: caughtUp ? 'PASS' : 'FAIL',
				raw: `${outage.evaluates} evaluations (the paused heights, the reorganisation margin and the check's margin), ${outage.gets} GET, ${outage.all - outage.gets - outage.evaluates} other, over ${checksDuring} checks; on the free tier that is ${(outage.all / FREE_TIER_PER_MINUTE).toFixed(1)} min of the account's budget`,
			},
		];
	} finally {
		await stack.close();
	}
}
