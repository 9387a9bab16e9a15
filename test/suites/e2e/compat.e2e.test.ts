/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The compatibility smoke test: on the n8n versions of the matrix (hosts/versions.ts) that `npm test`
 * smoke-tests (smokeVersions(): the newest 1.x beside the 2.x the other end-to-end suites run on), the packed package is installed as n8n installs
 * community packages, and in that real n8n:
 *   - both nodes and the credential load (n8n's own type lists name them; its log has no load error);
 *   - the trigger example registers its hook on activation, turns one delivered block into one
 *     execution with the expected items, and deletes its hook on deactivation;
 *   - listening for a test event with Sample Block gives a test execution at once, one item per event;
 *   - the action node runs one operation (the register-and-list example, through `n8n execute`).
 * `npm run test:matrix` runs every end-to-end suite on every version instead.
 */
import { setTimeout as sleep } from 'timers/promises';

import type { Emulator } from '../../emulator';
import { runWorkflowOnce } from '../../support/n8n/cli';
import { N8N_VERSIONS, selectedN8n, smokeVersions } from '../../support/n8n/hosts/versions';
import type { N8nInstance } from '../../support/n8n/instance';
import { type Stack, startStack } from '../../support/n8n/stack';
import { ACTION_TYPE, CREDENTIAL_NAME, CREDENTIAL_TYPE, type CredentialRef, EXAMPLE_SENDER, loadExample, TRIGGER_TYPE } from '../../support/examples';

const API_KEY = 'compat-api-key';
const SECRET = 'c0c0a7c0ffee5ec7e7c0c0a7c0ffee5ec7e7c0c0a7c0ffee5ec7e7c0c0a7c0ff';
const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';

const others = smokeVersions();

type Items = Array<{ json: Record<string, unknown> }>;

describe.each(others.map((entry) => [entry.version, entry.role]))('n8n %s (%s)', (version) => {
	let stack: Stack;
	let n8n: N8nInstance;
	let emu: Emulator;
	let credential: CredentialRef;

	beforeAll(async () => {
		stack = await startStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: CREDENTIAL_NAME, n8n: { n8nVersion: version } });
		({ n8n, emu, credential } = stack);
	}, 15 * 60_000);

	afterAll(async () => {
		await stack?.close();
	}, 60_000);

	it('runs that version, and loads both nodes and the credential from the installed package', async () => {
		expect(n8n.host.version).toBe(version);
		const nodes = (await n8n.api.page('/types/nodes.json')) as Array<{ name: string; displayName: string }>;
		const credentials = (await n8n.api.page('/types/credentials.json')) as Array<{ name: string }>;
		const ours = nodes.filter((node) => node.name.startsWith('n8n-nodes-stacks-hooks.'));
		// n8n adds a Tool variant of every node that is usableAsTool, for its AI agents.
		expect([...new Set(ours.map((node) => `${node.name} (${node.displayName})`))].sort()).toEqual([
			`${ACTION_TYPE} (Stacks Hooks)`,
			`${ACTION_TYPE}Tool (Stacks Hooks Tool)`,
			`${TRIGGER_TYPE} (Stacks Hooks Trigger)`,
		]);
		expect(credentials.map((entry) => entry.name)).toContain(CREDENTIAL_TYPE);
		expect(n8n.logs()).not.toMatch(/n8n-nodes-stacks-hooks[^\n]*(error|could not|failed)/i);
	});

	it('activates the trigger example: one hook, one delivered block, one execution with its items, no hook after deactivation', async () => {
		const example = loadExample('trigger', credential);
		const workflow = await n8n.api.createWorkflow(example);
		await n8n.api.activate(workflow.id);
		const [hook, ...extra] = emu.hooks(API_KEY);
		expect(extra).toEqual([]);
		expect(hook.status.enabled).toBe(true);
		expect(hook.definition.action.url).toBe(n8n.webhookUrl(`${String(example.nodes[0].webhookId)}/webhook`));

		const [report] = await emu.injectBlock({
			height: 1,
			transactions: [
				{ kind: 'stx_transfer', sender: EXAMPLE_SENDER, recipient: BOB, amount: 1_500_000 },
				{ kind: 'stx_transfer', sender: BOB, recipient: EXAMPLE_SENDER, amount: 7_000_000 },
			],
		});
		expect(report.status).toBe(200);
		const [tx] = report.payload.event.apply[0].transactions;
		const [execution] = await n8n.api.waitForExecutions(workflow.id, 1);
		expect(execution.status).toBe('success');
		const runData = execution.data?.resultData?.runData ?? {};
		const messages = (runData['Format message']?.[0]?.data?.main?.[0] as Items | undefined)?.map((item) => item.json);
		expect(messages).toEqual([
			expect.objectContaining({ sender: EXAMPLE_SENDER, recipient: BOB, amountStx: 1.5, blockHeight: 1, txHash: tx.transaction_identifier.hash }),
		]);

		await n8n.api.deactivate(workflow.id);
		expect(emu.hooks(API_KEY)).toEqual([]);
	}, 120_000);

	it('listens for a test event with Sample Block: an execution within seconds, one item per event, no test hook left', async () => {
		await emu.injectBlock({ height: 2, transactions: [{ kind: 'stx_transfer', sender: EXAMPLE_SENDER, recipient: BOB, amount: 2_500_000 }] });
		const example = loadExample('trigger', credential);
		const trigger = example.nodes[0] as { name: string; parameters: object };
		trigger.parameters = { ...trigger.parameters, output: 'event', sampleBlock: '2' };
		const workflow = await n8n.api.createWorkflow(example);
		await n8n.api.runManually(workflow.id, trigger.name);
		const [execution] = await n8n.api.waitForExecutions(workflow.id, 1, { timeoutMs: 10_000 });
		expect(execution.mode).toBe('manual');
		const items = (execution.data?.resultData?.runData?.[trigger.name]?.[0]?.data?.main?.[0] as Items | undefined)?.map((item) => item.json);
		expect(items).toEqual([expect.objectContaining({ eventType: 'stx_transfer', sender: EXAMPLE_SENDER, recipient: BOB, amount: '2500000', blockHeight: 2 })]);
		for (let waited = 0; emu.hooks(API_KEY).length > 0 && waited < 10_000; waited += 250) await sleep(250);
		expect(emu.hooks(API_KEY)).toEqual([]);
	}, 120_000);

	it('runs one operation of the action node (register a hook, then list them) through n8n execute', async () => {
		const result = await runWorkflowOnce(n8n, loadExample('registerAndList', credential));
		expect(result.exitCode).toBe(0);
		const runData = (result.json as { data: { resultData: { runData: Record<string, Array<{ data: { main: Items[] } }>> } } }).data.resultData.runData;
		const [registered] = runData['Register hook'][0].data.main[0].map((item) => item.json);
		expect(registered).toMatchObject({ definition: { filters: { events: [{ type: 'stx_transfer', sender: EXAMPLE_SENDER }] } }, status: { enabled: false } });
		expect(emu.hooks(API_KEY).map((hook) => hook.uuid)).toEqual([registered.uuid]);
		expect(runData['List hooks'][0].data.main[0].map((item) => item.json.uuid)).toEqual([registered.uuid]);
	}, 180_000);
});

if (others.length === 0) {
	it('has no other n8n version to check but those only the matrix runs', () => {
		expect(N8N_VERSIONS.filter((entry) => entry.version !== selectedN8n()).every((entry) => entry.matrixOnly)).toBe(true);
	});
}
