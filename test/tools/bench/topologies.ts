/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 8, what a healthy hook's health check costs at the service in each topology n8n is deployed in,
 * counted from the emulator's request log per hook (GET /me/<uuid>, POST /me/<uuid>/evaluate, anything
 * else), against today's one GET per check, with the alerts it raised (failed executions of the workflow:
 * how the trigger reports an incident in n8n 2.x):
 *   1. regular mode, n8n reaches its public webhook address (rows 8a idle, 8b streaming: catchup.ts);
 *   2. regular mode, the public address unreachable from inside (UNREACHABLE_PUBLIC_URL; 8d, 8e);
 *   3. queue mode, the public address reachable: the load balancer's (8f, 8g);
 *   4. queue mode, the public address unreachable, the Internal Webhook Address set to the load balancer (8h, 8i);
 *   5. queue mode, the public address unreachable, no Internal Webhook Address (8j, 8k).
 * 4 and 5 are two workflows (two triggers, two hooks) in one queue-mode stack, on one chain. Each hook
 * is measured idle (no matching block, the chain moving: a block for another sender every few seconds)
 * over CHECKS checks, then streaming (a matching block every 0.5-1 s, every one delivered) over CHECKS
 * checks and two more, after WARM_CHECKS checks that set the plan up. Expected: one GET a check, no
 * evaluation, no alert; in 5 the check is blind (the main takes no delivery and cannot ask the webhook
 * processes), so it replays nothing, and with a stream may say so once (the 'checkBlind' alert).
 * Requests are counted over whole checks, from the hook's first read (GET) in the phase to its first after
 * it; a read within half an interval of the one before counts into that one's check (an early check is its
 * extra cost), and checks closer than the schedule make the row miss. An alert counts as the blind check's
 * by the trigger's text, which n8n may show replaced by a message of its own (raw numbers say so).
 * The check runs every 3 s here; per hour figures are for the default 5-minute interval (12 checks an hour).
 */
import { randomUUID } from 'crypto';
import { setTimeout as sleep } from 'timers/promises';

import type { Emulator } from '../../emulator';
import { EXAMPLE_SENDER, loadExample, TRIGGER_TYPE } from '../../support/examples';
import type { Execution, N8nApi } from '../../support/n8n/api';
import { startQueueStack } from '../../support/n8n/queue';
import { startStack, UNREACHABLE_PUBLIC_URL } from '../../support/n8n/stack';
import { type Row, verdict } from './util';

export const API_KEY = 'bench-catchup-key';
export const SECRET = 'bench-catchup-secret-0123456789abcdef0123';
export const CHECK_MINUTES = 0.05;
export const CHECK_MS = CHECK_MINUTES * 60_000;
export const CHECKS = 8;
export const CHECKS_PER_HOUR = 12;
/** Checks after activation before measuring: the first ones set the plan up. */
const WARM_CHECKS = 3;
/** While idle, a block that matches no hook, this often: the chain moves. */
const IDLE_BLOCK_MS = 2_000;
const OTHER_SENDER = 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC';
export const RECIPIENT = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';

export type TopologyNumber = 1 | 2 | 3 | 4 | 5;
export const TOPOLOGY: Record<TopologyNumber, string> = {
	1: 'regular mode, public address reachable',
	2: 'regular mode, public address unreachable',
	3: 'queue mode, public address reachable',
	4: 'queue mode, public address unreachable, Internal Webhook Address set',
	5: 'queue mode, public address unreachable, no Internal Webhook Address',
};

/** One stack's chain and where to read what happened. */
export interface Bench {
	emu: Emulator;
	api: N8nApi;
	/** Every n8n process's output. */
	logs: () => string;
	/** Injects the next block, with a transfer from `sender` (default: the one the triggers watch). */
	mine: (sender?: string) => Promise<unknown>;
	/** The height of the last block injected. */
	tip: () => number;
}

/** A block at each height from `start + 1`, with one STX transfer (of its height in µSTX). */
export function chainOn(emu: Emulator, start = 700_000): Pick<Bench, 'mine' | 'tip'> {
	let height = start;
	return {
		mine: (sender = EXAMPLE_SENDER) => emu.injectBlock({ height: ++height, transactions: [{ kind: 'stx_transfer', sender, recipient: RECIPIENT, amount: height }] }),
		tip: () => height,
	};
}

export interface Watch {
	topology: TopologyNumber;
	hookName: string;
	workflowId: string;
}

/** The trigger example, checking every CHECK_MINUTES, with a webhook of its own, created and activated. */
/** When the trigger enabled hook `uuid` again (PATCH .../enabled {enabled: true}) after `since` (ms); undefined while it has not. */
export function enabledAgainAt(emu: Emulator, uuid: string, since: number): number | undefined {
	return emu.requests.find((r) => r.at > since && r.method === 'PATCH' && r.path.endsWith(`/me/${uuid}/enabled`) && (r.body as { enabled?: unknown })?.enabled === true)?.at;
}

export async function addTrigger(api: N8nApi, credential: { id: string; name: string }, topology: TopologyNumber, hookName: string, options: Record<string, unknown> = {}): Promise<Watch> {
	const workflow = loadExample('trigger', credential);
	workflow.name = `Bench: ${hookName}`;
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE)!;
	trigger.webhookId = randomUUID();
	trigger.parameters = { ...(trigger.parameters as object), hookName, options: { healthCheckMinutes: CHECK_MINUTES, ...options } };
	const { id } = await api.createWorkflow(workflow);
	await api.activate(id);
	return { topology, hookName, workflowId: id };
}

interface Count {
	gets: number;
	evaluates: number;
	/** Other requests naming the hook. */
	other: number;
	/** Requests of the account in the window naming no hook of the stack (charged to each hook of it). */
	unattributed: number;
	all: number;
	/** The checks in the window: its GETs of the hook, one that follows another within half an interval counted into that one's check. */
	checks: number;
	/** The window's length, ms: from the first check of the phase to the first after it. */
	ms: number;
	/** Whether the window is whole checks (else the phase's time, and `checks` its nominal count). */
	whole: boolean;
}

interface Alert {
	id: string;
	/** As n8n shows it (the execution's error message). */
	message: string;
	/** The trigger's own text, where n8n replaced it with one of its own (a NodeOperationError whose text names an error code). */
	original?: string;
	blind: boolean;
}

interface Phase extends Count {
	/** Alerts raised since the phase before (since activation for the first). */
	alerts: Alert[];
	/** Streaming: matching blocks injected, and how many of them reached n8n (answered 200). */
	blocks?: number;
	delivered?: number;
}

export interface Measured {
	watch: Watch;
	uuid: string;
	idle: Phase;
	streaming: Phase;
	/** What the request log and n8n's log said (for a figure off what is expected). */
	story: string;
}

const apiRequests = (emu: Emulator) => emu.requests.filter((request) => !request.path.startsWith('/_emulator'));

const BLIND_TEXT = 'The health check cannot tell whether';

async function alertsOf(api: N8nApi, workflowId: string): Promise<Alert[]> {
	const failed: Execution[] = await api.executions({ workflowId, status: 'error', includeData: true });
	return failed.map((execution) => {
		const error = execution.data?.resultData?.error ?? {};
		const message = String(error.message ?? '(no message)');
		// n8n's NodeOperationError puts a text of its own in place of one that names an error code (ECONNREFUSED, …); the
		// trigger's stays in the error's cause, as n8n saves it.
		const cause = (error.cause ?? {}) as { message?: unknown };
		const texts = [message, ...(typeof cause.message === 'string' ? [cause.message] : [])];
		const original = texts.find((text) => text !== message);
		return { id: execution.id, message, ...(original && { original }), blind: texts.some((text) => text.startsWith(BLIND_TEXT)) };
	});
}

/**
 * Every watched hook of one stack, measured at once on its chain: WARM_CHECKS checks, CHECKS idle (the chain
 * moving without a match), then CHECKS + 2 streaming (matching blocks every 0.5-1 s for CHECKS checks, two
 * more checks to take them in).
 */
export async function measureHealthy(bench: Bench, watches: Watch[], log: (msg: string) => void, label: string): Promise<Measured[]> {
	const { emu } = bench;
	const uuids = watches.map((watch) => {
		const hook = emu.hooks().find((candidate) => candidate.definition.name === watch.hookName);
		if (!hook) throw new Error(`activation registered no hook "${watch.hookName}"`);
		return hook.uuid;
	});
	const isGet = (uuid: string) => (r: { method: string; path: string }) => r.method === 'GET' && r.path.endsWith(`/me/${uuid}`);
	/** When each check of the hook read it: a GET within half an interval of the one before belongs to that one's check (an early check is its extra cost). */
	const checkStarts = (uuid: string) =>
		apiRequests(emu)
			.filter(isGet(uuid))
			.filter((r, i, gets) => i === 0 || r.at - gets[i - 1].at > CHECK_MS / 2)
			.map((r) => r.at);
	const firstCheck = (uuid: string, at: number) => checkStarts(uuid).find((start) => start >= at);
	/** The hook's requests in the phase [from, to), counted over whole checks: from its first check in the phase to its first after. */
	const count = (uuid: string, from: number, to: number): Count => {
		const t0 = firstCheck(uuid, from);
		const t1 = firstCheck(uuid, to);
		const whole = t0 !== undefined && t1 !== undefined && t0 < to;
		const [start, end] = whole ? [t0, t1] : [from, to];
		const requests = apiRequests(emu).filter((r) => r.at >= start && r.at < end);
		const mine = requests.filter((r) => r.path.includes(uuid));
		const gets = mine.filter(isGet(uuid)).length;
		const evaluates = mine.filter((r) => r.method === 'POST' && r.path.endsWith(`/me/${uuid}/evaluate`)).length;
		const unattributed = requests.filter((r) => !uuids.some((any) => r.path.includes(any))).length;
		const checks = whole ? checkStarts(uuid).filter((at) => at >= start && at < end).length : (to - from) / CHECK_MS;
		return { gets, evaluates, other: mine.length - gets - evaluates, unattributed, all: mine.length + unattributed, checks, ms: end - start, whole };
	};
	const seenAlerts = new Map<string, Set<string>>();
	const newAlerts = async (watch: Watch): Promise<Alert[]> => {
		const seen = seenAlerts.get(watch.workflowId) ?? new Set<string>();
		seenAlerts.set(watch.workflowId, seen);
		const fresh = (await alertsOf(bench.api, watch.workflowId)).filter((alert) => !seen.has(alert.id));
		for (const alert of fresh) seen.add(alert.id);
		return fresh;
	};

	await bench.mine();
	await sleep(WARM_CHECKS * CHECK_MS);

	log(`part 8: ${label}: idle healthy hook(s)`);
	const idleStart = Date.now();
	for (const until = Date.now() + CHECKS * CHECK_MS; Date.now() < until; ) {
		await bench.mine(OTHER_SENDER);
		await sleep(Math.min(IDLE_BLOCK_MS, Math.max(0, until - Date.now())));
	}
	const idleEnd = Date.now();
	const idleAlerts = await Promise.all(watches.map(newAlerts));

	log(`part 8: ${label}: a steady stream`);
	const streamStart = Date.now();
	const first = bench.tip() + 1;
	for (const until = Date.now() + CHECKS * CHECK_MS; Date.now() < until; await sleep(500 + Math.random() * 500)) await bench.mine();
	const heights = Array.from({ length: bench.tip() - first + 1 }, (_, i) => first + i);
	await sleep(2 * CHECK_MS);
	const streamEnd = Date.now();
	// Each hook's first check after the phase closes its last whole check.
	for (const deadline = streamEnd + 3 * CHECK_MS; uuids.some((uuid) => firstCheck(uuid, streamEnd) === undefined) && Date.now() < deadline; ) await sleep(200);
	const idle = watches.map((_, i) => ({ ...count(uuids[i], idleStart, idleEnd), alerts: idleAlerts[i] }));
	const streaming = await Promise.all(
		watches.map(async (watch, i) => {
			const ok = new Set(emu.deliveries.filter((report) => report.hookUuid === uuids[i] && report.status === 200).map((report) => report.blockHeight));
			return {
				...count(uuids[i], streamStart, streamEnd),
				alerts: await newAlerts(watch),
				blocks: heights.length,
				delivered: heights.filter((height) => ok.has(height)).length,
			};
		}),
	);

	// The request log of the whole measurement, per method and path (hooks named by topology), and the trigger's lines.
	const names = new Map(watches.map((watch, i) => [uuids[i], `<hook of ${watch.topology}>`]));
	const tally = new Map<string, number>();
	for (const r of apiRequests(emu).filter((request) => request.at >= idleStart && request.at < streamEnd)) {
		const key = `${r.method} ${[...names].reduce((path, [uuid, name]) => path.replace(uuid, name), r.path)} ${r.status}`;
		tally.set(key, (tally.get(key) ?? 0) + 1);
	}
	const lines = bench.logs().split('\n').filter((line) => line.includes('Stacks Hooks') || watches.some((watch) => line.includes(watch.workflowId)));
	const story =
		`requests from ${new Date(idleStart).toISOString().slice(11, 19)} to ${new Date(streamEnd).toISOString().slice(11, 19)}: ` +
		([...tally].map(([key, n]) => `${n}× ${key}`).join('; ') || 'none') +
		`\n  n8n's lines of the trigger (${lines.length}):\n${lines.slice(-30).map((line) => `    ${line.slice(0, 600)}`).join('\n')}`;
	return watches.map((watch, i) => ({ watch, uuid: uuids[i], idle: idle[i], streaming: streaming[i], story }));
}

/** The two rows of one topology's hook: idle, then streaming. */
export function healthyRows(measured: Measured, ids: [string, string], log: (msg: string) => void): Row[] {
	const { topology } = measured.watch;
	const blindAllowed = topology === 5;
	const row = (id: string, phase: Phase, streaming: boolean): Row => {
		const perCheck = phase.all / phase.checks;
		const periodMs = phase.ms / phase.checks;
		const blind = phase.alerts.filter((alert) => alert.blind).length;
		// A streaming hook in 5 may say once that the check is blind; any other alert is a false one.
		const alertsOk = phase.alerts.length === 0 || (blindAllowed && streaming && phase.alerts.length === 1 && blind === 1);
		const allDelivered = !streaming || phase.delivered === phase.blocks;
		// Checks closer than the schedule (3 s, spread ±10 %) would make a request a check look cheaper than it is.
		const onSchedule = periodMs >= 0.85 * CHECK_MS;
		const result = !alertsOk || !allDelivered ? 'FAIL' : verdict(perCheck <= 1.0 && phase.evaluates === 0 && onSchedule);
		const alertText = phase.alerts.length
			? phase.alerts
					.map((alert) => `execution ${alert.id}${alert.blind ? ' (the blind check)' : ''}: "${alert.message.slice(0, 200)}"${alert.original ? ` in place of the trigger's "${alert.original.slice(0, 200)}…"` : ''}`)
					.join(' | ')
			: 'none';
		return {
			id,
			what: `health check, ${streaming ? 'streaming hook' : 'idle healthy hook'}, ${topology}. ${TOPOLOGY[topology]}: requests an hour (5-min interval), alerts`,
			figure: `${(perCheck * CHECKS_PER_HOUR).toFixed(1)}/h, ${phase.alerts.length} alert${phase.alerts.length === 1 ? '' : 's'}`,
			reference: `${CHECKS_PER_HOUR}/h (one GET a check)`,
			ratio: perCheck,
			target: `≤ 1.0×, 0 evaluate, ${blindAllowed && streaming ? '≤ 1 alert (blind)' : '0 alerts'}`,
			verdict: result,
			raw:
				`${phase.all} requests (${phase.gets} GET, ${phase.evaluates} evaluate, ${phase.other} other naming the hook, ${phase.unattributed} naming no hook) ` +
				(phase.whole
					? `in ${phase.checks} checks over ${(phase.ms / 1000).toFixed(1)} s (one every ${(periodMs / 1000).toFixed(2)} s, scheduled every ${CHECK_MS / 1000} s ±10 %` +
						`${phase.gets > phase.checks ? `; ${phase.gets - phase.checks} GET(s) within half an interval of the one before: an early check` : ''})`
					: `in ${phase.checks.toFixed(1)} nominal checks of ${CHECK_MS / 1000} s (the hook was not read in the phase)`) +
				(streaming ? `, ${phase.blocks} matching blocks one every 0.5-1 s, ${phase.delivered} delivered (200)` : ', the chain moving without a match') +
				`; alerts: ${alertText}`,
		};
	};
	const rows = [row(ids[0], measured.idle, false), row(ids[1], measured.streaming, true)];
	// A figure off what is expected, or an alert: what the service was asked, and what the trigger said.
	const odd = rows.filter((r) => r.verdict !== 'PASS').map((r) => `${r.id} ${r.verdict}`);
	if (odd.length || measured.idle.alerts.length || measured.streaming.alerts.length) {
		log(`part 8: topology ${topology} (${odd.join(', ') || 'alerts raised'}): ${measured.story}`);
	}
	return rows;
}

/** Topologies 2 to 5 (1 is catchup.ts's, on the stack its catch-up runs on). */
export async function topologyRows(log: (msg: string) => void): Promise<Row[]> {
	const rows: Row[] = [];
	const account = { apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks API', emulator: { rateLimit: null } };

	log('part 8: topology 2, regular mode, public address unreachable');
	const regular = await startStack({ ...account, publicUrl: UNREACHABLE_PUBLIC_URL });
	try {
		const watch = await addTrigger(regular.n8n.api, regular.credential, 2, 'Bench topology 2');
		const bench = { emu: regular.emu, api: regular.n8n.api, logs: () => regular.n8n.logs(), ...chainOn(regular.emu) };
		const [measured] = await measureHealthy(bench, [watch], log, 'topology 2');
		rows.push(...healthyRows(measured, ['8d', '8e'], log));
	} finally {
		await regular.close();
	}

	log('part 8: topology 3, queue mode, public address reachable (the load balancer)');
	const reachable = await startQueueStack(account);
	try {
		const watch = await addTrigger(reachable.main.api, reachable.credential, 3, 'Bench topology 3');
		const logs = () => [reachable.main, ...reachable.webhooks, ...reachable.workers].map((proc) => proc.logs()).join('\n');
		const [measured] = await measureHealthy({ emu: reachable.emu, api: reachable.main.api, logs, ...chainOn(reachable.emu) }, [watch], log, 'topology 3');
		rows.push(...healthyRows(measured, ['8f', '8g'], log));
	} finally {
		await reachable.close();
	}

	log('part 8: topologies 4 and 5, queue mode, public address unreachable, with and without the Internal Webhook Address');
	const unreachable = await startQueueStack({ ...account, publicUrl: UNREACHABLE_PUBLIC_URL });
	try {
		const { api } = unreachable.main;
		const internal = await addTrigger(api, unreachable.credential, 4, 'Bench topology 4', { internalWebhookAddress: `https://127.0.0.1:${unreachable.balancer.port}` });
		const blind = await addTrigger(api, unreachable.credential, 5, 'Bench topology 5');
		const logs = () => [unreachable.main, ...unreachable.webhooks, ...unreachable.workers].map((proc) => proc.logs()).join('\n');
		const [four, five] = await measureHealthy({ emu: unreachable.emu, api, logs, ...chainOn(unreachable.emu) }, [internal, blind], log, 'topologies 4 and 5');
		rows.push(...healthyRows(four, ['8h', '8i'], log), ...healthyRows(five, ['8j', '8k'], log));
	} finally {
		await unreachable.close();
	}
	return rows;
}
