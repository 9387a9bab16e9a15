/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * What the trigger keeps in memory in a real n8n, read inside n8n's process through its inspector
 * (test/support/n8n/inspector.ts). The trigger keeps it per node (nodes/StacksHooksTrigger/nodeMemory.ts).
 *
 * Workflows go through n8n in rounds of 20: one round in npm test (20 activations, about 40 s of a
 * 2-core machine), and 10 with FC_RUNS_FACTOR=10 (200, as bench part 10 also runs them).
 *
 * In each round the workflows are activated, and one block reaches all of them, so each takes a delivery
 * and runs once. Half of them watch a typed address list and output one item per event. Half run a health
 * check every 3 seconds. Before the round ends, the test sees each workflow's entries in n8n's memory, so a
 * probe that saw nothing would fail here. Then the workflows are deactivated, and nothing of any of them is
 * left. (n8n 2.x deletes only a workflow that is not active, so a deletion runs the same deactivation
 * first.) A last look, after two more check intervals, makes sure no late health check brought an entry
 * back.
 *
 * It runs on the run's shared n8n (shared.ts), beside the suites that share it, and looks only at its own
 * workflows.
 */
import { setTimeout as sleep } from 'timers/promises';

import type { Emulator } from '../../emulator';
import type { WorkflowJson } from '../../support/n8n/api';
import { Inspector, type TriggerMemory } from '../../support/n8n/inspector';
import type { RunningN8n } from '../../support/n8n/instance';
import { type SharedStack, sharedStack } from '../../support/n8n/shared';
import { propertyParameters } from '../../support/properties';

const API_KEY = 'memory-e2e-key';
const SECRET = '3e3e0a11'.repeat(8);
const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
/** Each round is 20 activations and deactivations, about 30 s of a shared 2-core machine. */
const ROUNDS = propertyParameters(1).numRuns!;
const PER_ROUND = 20;
/** How often the checking half runs its health check: every 3 seconds. */
const CHECK_MINUTES = 0.05;

let stack: SharedStack;
let n8n: RunningN8n;
let emu: Emulator;
let inspector: Inspector;
let height = 5000;
jest.setTimeout(10 * 60_000);

beforeAll(async () => {
	stack = await sharedStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: 'Stacks Hooks (memory)' });
	({ n8n, emu } = stack);
	inspector = await Inspector.connect(n8n.inspectorPort!);
}, 15 * 60_000);

afterAll(async () => {
	inspector?.close();
	await stack?.close();
}, 120_000);

/** Workflow `index` of round `round`: every other one watches a typed list and outputs events, every other pair checks its health. */
function workflow(round: number, index: number): WorkflowJson {
	const typed = index % 2 === 0;
	const checks = index % 4 < 2;
	return {
		name: `Memory ${round}.${index}`,
		nodes: [
			{
				id: `b7c0e2a4-0000-4000-8000-${String(round * 100 + index).padStart(12, '0')}`,
				name: 'Stacks Hooks Trigger',
				type: 'n8n-nodes-stacks-hooks.stacksHooksTrigger',
				typeVersion: 1.1,
				position: [0, 0],
				webhookId: `5d1f3a70-0000-4000-8000-${String(round * 100 + index).padStart(12, '0')}`,
				parameters: {
					...(typed
						? { watch: 'addresses', addresses: `${ALICE}\n${BOB}`, watchFor: ['stxSent', 'stxReceived'], output: 'event' }
						: { events: { filter: [{ type: 'stx_transfer', sender: ALICE }] } }),
					options: { healthCheckMinutes: checks ? CHECK_MINUTES : 0 },
				},
				credentials: { stacksHooksApi: stack.credential },
			},
		],
		connections: {},
	};
}

/** The node keys of `memory` that belong to workflow `workflowId`, with what each holds. */
function entriesOf(memory: TriggerMemory, workflowIds: string[]): Record<string, string[]> {
	const ours = new Set(workflowIds);
	return Object.fromEntries(Object.entries(memory.nodes).filter(([key]) => ours.has(key.split('\u0000')[0])));
}

/** Runs `work` for each of `inputs`, a few at a time, as a user's n8n activates workflows side by side at its start. */
async function eachAtOnce<T>(inputs: T[], work: (input: T, index: number) => Promise<void>): Promise<void> {
	let next = 0;
	await Promise.all(
		Array.from({ length: 5 }, async () => {
			for (let at = next++; at < inputs.length; at = next++) await work(inputs[at], at);
		}),
	);
}

/** Polls n8n's memory until `done` holds of it, or `ms` pass; answers the last read. */
async function memoryWhen(done: (memory: TriggerMemory) => boolean, ms: number): Promise<TriggerMemory> {
	let memory = await inspector.triggerMemory(n8n.userFolder);
	for (const until = Date.now() + ms; !done(memory) && Date.now() < until; ) {
		await sleep(250);
		memory = await inspector.triggerMemory(n8n.userFolder);
	}
	return memory;
}

it(`${ROUNDS * PER_ROUND} workflows activated, run and deactivated leave nothing of theirs in the trigger's memory`, async () => {
	const began = Date.now();
	const everyId: string[] = [];
	for (let round = 0; round < ROUNDS; round++) {
		const ids: string[] = new Array(PER_ROUND);
		await eachAtOnce(ids, async (_, index) => {
			const created = await n8n.api.createWorkflow(workflow(round, index));
			await n8n.api.activate(created.id);
			ids[index] = created.id;
		});
		everyId.push(...ids);

		// Answered once n8n has taken each delivery and started its execution.
		const reports = await emu.injectBlock({ height: ++height, transactions: [{ kind: 'stx_transfer', sender: ALICE, recipient: BOB, amount: 1_000_000 }] });
		expect(reports.filter((report) => report.status === 200)).toHaveLength(PER_ROUND);
		// Each has its entries, and the checking half its health check's state, before it goes.
		const checking = ids.filter((_, index) => index % 4 < 2);
		const held = await memoryWhen((memory) => {
			const entries = entriesOf(memory, ids);
			return Object.keys(entries).length === PER_ROUND && checking.every((id) => Object.entries(entries).some(([key, slots]) => key.startsWith(`${id}\u0000`) && slots.includes('health check state')));
		}, 20_000);
		const entries = entriesOf(held, ids);
		expect(Object.keys(entries)).toHaveLength(PER_ROUND);
		// What a delivery, a typed list and a health check leave, at the least (a secret read again may add its own).
		expect([...new Set(Object.values(entries).flat())]).toEqual(expect.arrayContaining(['deliveries taken', 'where deliveries came in', 'typed address list', 'health check state']));

		await eachAtOnce(ids, async (id) => void (await n8n.api.deactivate(id)));
		expect(entriesOf(await inspector.triggerMemory(n8n.userFolder), ids)).toEqual({});
	}
	console.log(`memory: ${ROUNDS} rounds of ${PER_ROUND} workflows in ${((Date.now() - began) / 1000).toFixed(0)} s`);
	// Two more check intervals: a check that was running when its workflow went brings nothing back.
	await sleep(2 * CHECK_MINUTES * 60_000);
	expect(entriesOf(await inspector.triggerMemory(n8n.userFolder), everyId)).toEqual({});
	expect(emu.hooks(API_KEY)).toEqual([]);
});
