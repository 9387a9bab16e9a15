/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 9, rows 9f and 9g: a watch list of 10,000 addresses end to end in a real n8n (the selected version, HTTPS,
 * the packed package installed as n8n installs community packages), the blocks posted by the emulator as the
 * service sends them. Two workflows in one n8n:
 *   A: the Stacks Hooks Trigger watching the watch list (Watch: Addresses on a Watch List, Watch For: STX
 *      Received, One Item per Event), the list kept at the emulator as the Stacks Hooks node keeps it (its list hook);
 *   B: what a user builds without it: the Stacks Hooks Trigger in Trigger On mode on every STX transfer (one broad
 *      hook), One Item per Event, followed by n8n's Filter node keeping the items whose recipient is in the same
 *      10,000 addresses (one condition: an array of the addresses, written in the condition, contains the recipient).
 * Each side gets the same blocks (part 9a's block builder: 300 transactions, one in 33 to a listed address), each
 * block once, while the other side's hook is held by the emulator (it evaluates nothing for it). Measured per side:
 * the time from the blocks' posting to the last execution's end (n8n's saved executions), the executions, the
 * items out, and the CPU time of n8n's process group (/proc). Two rounds, A B then B A, each on blocks of its own.
 */
import { randomUUID } from 'crypto';
import { performance } from 'perf_hooks';

import { type Block, type DeliveryReport, matchingTransactions } from '../../emulator';
import { listDefinition } from '../../../nodes/shared/watchList/listHook';
import { watchFilters } from '../../../nodes/shared/watchList/kinds';
import type { Execution, WorkflowJson } from '../../support/n8n/api';
import { groupCpuMs } from '../../support/n8n/process';
import { startStack } from '../../support/n8n/stack';
import { executionsAfter, waitForNew } from './n8n-delivery';
import { API_KEY, SECRET } from './payloads';
import { fmtBytes, fmtMs, type Row, verdict } from './util';

const LIST_NAME = 'bench deposits';
/** Blocks per side and round, and before the rounds (warm-up, not reported). */
const BLOCKS = 20;
const WARM_BLOCKS = 3;
const ROUNDS = 2;
const TRIGGER_NODE = 'Stacks Hooks Trigger';
const FILTER_NODE = 'Listed recipients';
/** Off on both sides: it costs one request per interval, not per block, and would act on heights posted twice. */
const NO_HEALTH_CHECK = { healthCheckMinutes: 0 };

type SideKey = 'list' | 'broad';
const SIDE_NAME: Record<SideKey, string> = { list: 'A (watch list)', broad: 'B (broad hook + Filter)' };

interface Side {
	key: SideKey;
	workflowId: string;
	hookUuid: string;
	/** The node whose first output holds the side's items. */
	itemsNode: string;
}

interface Phase {
	/** From the blocks' posting to the end of the last execution, ms. */
	ms: number;
	/** CPU time of n8n's process group over the phase, ms. */
	cpuMs: number;
	/** The emulator's matching of the blocks (the service's work, outside n8n), ms. */
	matchMs: number;
	executions: number;
	/** Items the trigger output (B: into the Filter). */
	triggerItems: number;
	/** Items out: the trigger's (A), the Filter's kept ones (B). */
	itemsOut: number;
	bytes: number;
	/** The items out, as "txHash recipient amount". */
	transfers: string[];
	problems: string[];
}

function workflow(side: SideKey, credential: { id: string; name: string }, list: readonly string[]): WorkflowJson {
	const trigger = {
		id: randomUUID(), name: TRIGGER_NODE, type: 'n8n-nodes-stacks-hooks.stacksHooksTrigger', typeVersion: 1.1, position: [0, 0], webhookId: randomUUID(),
		credentials: { stacksHooksApi: credential },
		parameters:
			side === 'list'
				? { watch: 'list', listName: LIST_NAME, watchFor: ['stxReceived'], output: 'event', rollbacks: 'include', hookName: '', options: NO_HEALTH_CHECK }
				: { watch: 'filters', events: { filter: [{ type: 'stx_transfer' }] }, output: 'event', rollbacks: 'include', hookName: '', options: NO_HEALTH_CHECK },
	};
	if (side === 'list') return { name: 'Bench: 10,000-address watch list', nodes: [trigger], connections: {}, settings: { executionOrder: 'v1' } };
	// n8n's Filter node as the editor writes it (typeVersion 2.3): the addresses pasted into the condition as an array.
	const filter = {
		id: randomUUID(), name: FILTER_NODE, type: 'n8n-nodes-base.filter', typeVersion: 2.3, position: [220, 0],
		parameters: {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 3 },
				conditions: [{ id: randomUUID(), leftValue: `={{ ${JSON.stringify(list)} }}`, rightValue: '={{ $json.recipient }}', operator: { type: 'array', operation: 'contains', rightType: 'any' } }],
				combinator: 'and',
			},
			options: {},
		},
	};
	return {
		name: 'Bench: every STX transfer, then a Filter on 10,000 addresses',
		nodes: [trigger, filter],
		connections: { [TRIGGER_NODE]: { main: [[{ node: FILTER_NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

type Json = Record<string, unknown>;
const itemsOf = (execution: Execution, node: string) => execution.data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0] ?? [];
const transferOf = (json: Json) => `${String(json.txHash)} ${String(json.recipient)} ${String(json.amount)}`;

export async function watchListN8nRows(log: (msg: string) => void): Promise<Row[]> {
	const started = Date.now();
	// Part 9a's list and block builder (the in-process rows), loaded only when this part runs: watchList.ts brings n8n-core with it.
	const { LIST, streamBlock } = await import('./watchList');
	const stack = await startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks API', emulator: { rateLimit: null } });
	try {
		const { emu, n8n } = stack;
		// The list as the Stacks Hooks node keeps it (Watch List → Add): its list hook, one balance_change filter per address.
		const registered = await fetch(`${emu.url}/me/`, {
			method: 'POST',
			headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
			body: JSON.stringify(listDefinition(LIST_NAME, 'testnet', { addresses: LIST, edits: [] })),
		});
		if (registered.status !== 200) throw new Error(`registering the list hook: ${registered.status} ${await registered.text()}`);

		const sides = {} as Record<SideKey, Side>;
		for (const key of ['list', 'broad'] as const) {
			const before = new Set(emu.hooks(API_KEY).map((hook) => hook.uuid));
			const { id } = await n8n.api.createWorkflow(workflow(key, stack.credential, LIST));
			await n8n.api.activate(id);
			const added = emu.hooks(API_KEY).filter((hook) => !before.has(hook.uuid));
			if (added.length !== 1) throw new Error(`activating side ${SIDE_NAME[key]} registered ${added.length} hooks`);
			sides[key] = { key, workflowId: id, hookUuid: added[0].uuid, itemsNode: key === 'list' ? TRIGGER_NODE : FILTER_NODE };
		}
		const watching = emu.hooks(API_KEY).find((hook) => hook.uuid === sides.list.hookUuid)!;
		const watchingFilters = watching.definition.filters.events.length;
		log(`part 9f: n8n ready, both workflows active; the watching hook "${watching.definition.name}" holds ${watchingFilters} filters (${((Date.now() - started) / 1000).toFixed(1)} s of set-up)`);

		const lastId: Record<SideKey, number> = { list: 0, broad: 0 };
		/** One side's phase: `blocks` posted by the emulator to its hook alone, every execution waited for and read. */
		const phase = async (side: Side, blocks: Block[]): Promise<Phase> => {
			const other = side.key === 'list' ? sides.broad : sides.list;
			emu.stallHook(other.hookUuid, true);
			emu.stallHook(side.hookUuid, false);
			const pid = n8n.process.pid;
			const cpu0 = groupCpuMs(pid);
			// The emulator evaluates every block against the hook at once, in this loop (the service's work, not n8n's);
			// it posts nothing before the loop has ended (a hook's deliveries wait on a promise), so the clock starts after it.
			const matchStart = performance.now();
			const posted = blocks.map((block) => emu.injectBlock(block));
			const matchMs = performance.now() - matchStart;
			const t0 = Date.now();
			const reports = (await Promise.all(posted)).flat().filter((report: DeliveryReport) => report.hookUuid === side.hookUuid);
			const problems: string[] = [];
			const failed = reports.filter((report) => report.status !== 200);
			// A failed delivery starts no execution: it is a problem of the row, named with its height and error, not waited for.
			const failures = failed.map((report) => `height ${report.blockHeight} answered ${report.status ?? 'nothing'} (${report.error})`);
			if (failed.length) problems.push(`${SIDE_NAME[side.key]}: ${failed.length} deliveries failed: ${failures.join(', ')}`);
			const done = await waitForNew(n8n, side.workflowId, lastId[side.key], reports.length - failed.length, 180_000);
			const cpuMs = groupCpuMs(pid) - cpu0;
			const executions = await executionsAfter(n8n, side.workflowId, lastId[side.key], true, 25);
			lastId[side.key] = Math.max(lastId[side.key], ...executions.map((execution) => Number(execution.id)));
			const unsuccessful = executions.filter((execution) => execution.status !== 'success');
			if (unsuccessful.length) problems.push(`${SIDE_NAME[side.key]}: ${unsuccessful.length} executions ended ${unsuccessful.map((execution) => execution.status).join('/')}`);
			if (executions.length !== reports.length) problems.push(`${SIDE_NAME[side.key]}: ${reports.length} deliveries, ${executions.length} executions`);
			const out = executions.flatMap((execution) => itemsOf(execution, side.itemsNode).map((item) => item.json));
			return {
				ms: Math.max(...done.map((execution) => Date.parse(execution.stoppedAt!))) - t0,
				cpuMs,
				matchMs,
				executions: executions.length,
				triggerItems: executions.reduce((sum, execution) => sum + itemsOf(execution, TRIGGER_NODE).length, 0),
				itemsOut: out.length,
				bytes: reports.reduce((sum, report) => sum + Buffer.byteLength(JSON.stringify(report.payload)), 0),
				transfers: out.map(transferOf).sort(),
				problems,
			};
		};

		// Warm-up: each side's first blocks compile n8n's and the nodes' code paths; not reported.
		let height = 900_000;
		const nextBlocks = (n: number) => Array.from({ length: n }, () => streamBlock(++height));
		const warm = nextBlocks(WARM_BLOCKS);
		const problems: string[] = [];
		for (const key of ['list', 'broad'] as const) problems.push(...(await phase(sides[key], warm)).problems.map((problem) => `warm-up: ${problem}`));
		log('part 9f: warm-up done');

		const phases: Record<SideKey, Phase[]> = { list: [], broad: [] };
		let expectedTotal = 0;
		const listFilters = { events: watchFilters(LIST, ['stxReceived']) } as never;
		for (let round = 1; round <= ROUNDS; round++) {
			const blocks = nextBlocks(BLOCKS);
			// What the list selects in these blocks, counted here as the service's filters would (one STX transfer a transaction).
			const expected = blocks.reduce((sum, block) => sum + matchingTransactions({ filters: listFilters }, block).length, 0);
			expectedTotal += expected;
			const order = round % 2 ? (['list', 'broad'] as const) : (['broad', 'list'] as const);
			const figures = {} as Record<SideKey, Phase>;
			for (const key of order) {
				figures[key] = await phase(sides[key], blocks);
				phases[key].push(figures[key]);
				const f = figures[key];
				log(
					`part 9f, round ${round}: ${SIDE_NAME[key]}: ${f.executions} executions, ${f.itemsOut} items out, last done after ${fmtMs(f.ms)}, ` +
						`n8n CPU ${fmtMs(f.cpuMs)} (the emulator's matching ${fmtMs(f.matchMs)})`,
				);
			}
			problems.push(...figures.list.problems, ...figures.broad.problems);
			const [a, b] = [figures.list.transfers, figures.broad.transfers];
			if (a.length !== expected || b.length !== expected || a.some((transfer, i) => transfer !== b[i])) {
				const onlyA = a.filter((transfer) => !b.includes(transfer)).length;
				const onlyB = b.filter((transfer) => !a.includes(transfer)).length;
				problems.push(`round ${round}: ${expected} listed transfers in the blocks; A gave ${a.length}, B ${b.length} (${onlyA} only in A, ${onlyB} only in B)`);
			}
		}

		const sum = (key: SideKey, field: 'ms' | 'cpuMs' | 'matchMs' | 'executions' | 'triggerItems' | 'itemsOut' | 'bytes') => phases[key].reduce((total, p) => total + p[field], 0);
		const list = (key: SideKey, field: 'ms' | 'cpuMs') => phases[key].map((p) => fmtMs(p[field])).join(' and ');
		const [A, B] = [sum('list', 'ms'), sum('broad', 'ms')];
		const [cpuA, cpuB] = [sum('list', 'cpuMs'), sum('broad', 'cpuMs')];
		const correct = problems.length === 0;
		const blocksAll = BLOCKS * ROUNDS;
		const count = (n: number) => n.toLocaleString('en');
		const size = count(LIST.length);
		const setUp =
			`Each round posts ${BLOCKS} blocks of 300 transactions to each side, one transaction in 33 to a listed address, built as 9a's. ` +
			`Round 1 runs A then B, round 2 runs B then A on new blocks; ${WARM_BLOCKS} warm-up blocks a side come first. ` +
			"Each side gets every block once, while the emulator holds the other side's hook. " +
			`Both workflows run in one n8n ${n8n.host.version} in regular mode over HTTPS, with n8n's defaults (every execution saved) and the health check off. ` +
			`A is the Stacks Hooks Trigger watching the list "${LIST_NAME}" of ${size} addresses for STX Received, One Item per Event. ` +
			`The list hook was registered at the emulator as the Stacks Hooks node registers it, and A's own hook holds ${count(watchingFilters)} filters` +
			`${watching.definition.name.includes('matched in n8n') ? ' and leaves the matching to the trigger' : ', one per address'}. ` +
			"B is the Stacks Hooks Trigger in Trigger On mode on every STX transfer, One Item per Event, followed by n8n's Filter node (typeVersion 2.3). " +
			"That trigger is what a user of this package has without the watch list; n8n's Webhook node would also need a hook registered by hand. " +
			`The Filter has one condition: an array of the ${size} addresses, pasted into the condition, contains {{ $json.recipient }}. ` +
			"The Filter node is n8n's node for keeping some items, and the pasted list keeps B to two nodes.";
		const numbers =
			`A: ${sum('list', 'executions')} executions for ${blocksAll} blocks, ${count(sum('list', 'itemsOut'))} items out, ${fmtBytes(sum('list', 'bytes'))} delivered, done after ${list('list', 'ms')}. ` +
			`B: ${sum('broad', 'executions')} executions, ${count(sum('broad', 'triggerItems'))} items from the trigger into the Filter, ${count(sum('broad', 'itemsOut'))} items kept, ` +
			`${fmtBytes(sum('broad', 'bytes'))} delivered, done after ${list('broad', 'ms')}. ` +
			`The blocks held ${count(expectedTotal)} STX transfers to listed addresses. ` +
			(correct
				? 'Both sides gave exactly those transfers (transaction, recipient and amount compared), and every execution succeeded. '
				: `PROBLEMS: ${problems.slice(0, 6).join('; ')}. `) +
			`The emulator's matching runs outside n8n and before the clock starts: ${fmtMs(sum('list', 'matchMs'))} for A's ${count(watchingFilters)} filters, ${fmtMs(sum('broad', 'matchMs'))} for B's one.`;
		return [
			{
				id: '9f', what: `a ${size}-address watch list in n8n, ${blocksAll} blocks of 300 tx: time until the last item is done`,
				figure: fmtMs(A), reference: `one broad hook + Filter node ${fmtMs(B)}`, ratio: A / B,
				target: '≤ 1×', verdict: correct ? verdict(A <= B) : 'FAIL',
				raw:
					`The time from the blocks' posting to the end of the last execution (stoppedAt of n8n's saved executions), summed over ${ROUNDS} rounds. ${setUp} ${numbers} ` +
					"The executions were polled every 250 ms through n8n's public API on both sides.",
			},
			{
				id: '9g', what: `a ${size}-address watch list in n8n, ${blocksAll} blocks of 300 tx: CPU of the n8n process`,
				figure: fmtMs(cpuA), reference: `one broad hook + Filter node ${fmtMs(cpuB)}`, ratio: cpuA / cpuB,
				target: '≤ 1×', verdict: correct ? verdict(cpuA <= cpuB) : 'FAIL',
				raw:
					"CPU time (utime and stime from /proc) of n8n's process group (its main process and task runner), from the blocks' posting until every execution was seen finished, summed over the rounds. " +
					`A: ${list('list', 'cpuMs')}. B: ${list('broad', 'cpuMs')}. ` +
					"It includes n8n's answers to the polls of its executions. The set-up is 9f's. " +
					`The whole part took ${((Date.now() - started) / 1000).toFixed(0)} s.`,
			},
		];
	} finally {
		await stack.close();
	}
}
