/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The example workflows of test/examples/workflows/, each imported into one
 * real n8n (the selected version, see hosts/versions.ts; HTTPS, the packed package installed as n8n installs
 * community packages) and run against the emulator on loopback: the manual
 * ones once, as the editor's "Execute workflow" runs them, the trigger ones
 * activated and fed a block.
 * Then the editor itself, in headless Chromium: the example's nodes, their
 * icons, names and parameter panels, a trigger's One Item per Event output
 * in an execution, and Sample Block as a user tries it (typed in the trigger's
 * panel, "Execute step": the output comes and listening ends, or the message
 * when the block has no match). Screenshots go to test/artifacts/.
 */
import * as fs from 'fs';
import * as path from 'path';
import { setTimeout as sleep } from 'timers/promises';

import type { Page } from 'playwright-core';

import type { Emulator } from '../../emulator';
import type { Workflow } from '../../support/n8n/api';
import type { RunningN8n } from '../../support/n8n/instance';
import { type SharedStack, sharedStack } from '../../support/n8n/shared';
import { ARTIFACTS_DIR, EXAMPLES_DIR } from '../../support/paths';
import {
	canvasNode,
	closeNodePanel,
	type EditorBrowser,
	imageSources,
	imagesLoaded,
	openBrowser,
	openExecution,
	openNodePanel,
	openWorkflow,
	panelLabels,
	recordTraffic,
	signIn,
	type TrafficRecorder,
} from '../../support/browser';
import {
	ACTION_TYPE,
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	type CredentialRef,
	EXAMPLE_SENDER,
	type ExampleKey,
	EXAMPLES,
	exampleKeys,
	loadExample,
	TRIGGER_TYPE,
	WORKFLOWS_DIR,
} from '../../support/examples';

const API_KEY = 'examples-api-key';
const SECRET = 'e8a3c0ffee5ec7e7e8a3c0ffee5ec7e7e8a3c0ffee5ec7e7e8a3c0ffee5ec7e7';
const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
const CAROL = 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC';
const ICON_PATH = '/icons/n8n-nodes-stacks-hooks/dist/nodes/';
/** The contract contract-prints-trigger.json watches, and the one it must not. */
const WATCHED = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM.example-token';
const OTHER_CONTRACT = `${BOB}.other-token`;
const OUTPUT_PANEL = '[data-test-id=ndv] [data-test-id=output-panel]';

const ARTIFACTS = ARTIFACTS_DIR;
const README_SCREENSHOTS = path.join(EXAMPLES_DIR, 'screenshots');

let stack: SharedStack;
let n8n: RunningN8n;
let emu: Emulator;
let credential: CredentialRef;
const imported = new Map<ExampleKey, Workflow>();
/** The execution the print example ran for its block (the browser check opens it). */
let printsExecutionId: string | undefined;

/**
 * Runs a manual example once in the running n8n, as its "Execute workflow" button does, and returns the items each
 * node output. (These runs went through `n8n execute` before: two more n8n processes booted for each, about 15 s of
 * CPU. The smoke test on 1.x still runs one that way, compat.e2e.test.ts.)
 */
async function runExample(key: ExampleKey): Promise<Record<string, Array<Record<string, unknown>>>> {
	const workflow = imported.get(key)!;
	const start = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
	expect(start).toBeDefined();
	await n8n.api.runManually(workflow.id, String(start!.name));
	const [execution] = await n8n.api.waitForExecutions(workflow.id, 1, { timeoutMs: 60_000 });
	expect({ status: execution.status, error: execution.data?.resultData?.error?.message }).toEqual({ status: 'success', error: undefined });
	const runData = execution.data?.resultData?.runData ?? {};
	return Object.fromEntries(Object.entries(runData).map(([node, runs]) => [node, (runs[0].data?.main?.[0] ?? []).map((item) => item.json)]));
}

beforeAll(async () => {
	stack = await sharedStack({ apiKey: API_KEY, consumerSecret: SECRET, credentialName: CREDENTIAL_NAME });
	({ n8n, emu, credential } = stack);
	for (const key of exampleKeys()) imported.set(key, await n8n.api.createWorkflow(loadExample(key, credential)));
}, 15 * 60_000);

afterAll(async () => {
	await stack?.close();
}, 60_000);

describe('the example workflows', () => {
	it('are the twelve example files, with loopback URLs only', () => {
		expect(fs.readdirSync(WORKFLOWS_DIR).sort()).toEqual(Object.values(EXAMPLES).sort());
		expect(Object.values(EXAMPLES)).toHaveLength(12);
		for (const file of Object.values(EXAMPLES)) {
			const text = fs.readFileSync(path.join(WORKFLOWS_DIR, file), 'utf8');
			const urls = text.match(/https?:\/\/[^\s"'`)]+/g) ?? [];
			expect(urls.filter((url) => !url.startsWith('https://127.0.0.1:'))).toEqual([]);
		}
	});

	it('import into n8n with the credential pointed at the real one', async () => {
		for (const key of exampleKeys()) {
			const workflow = await n8n.api.getWorkflow(imported.get(key)!.id);
			const ours = workflow.nodes.filter((node) => node.type === TRIGGER_TYPE || node.type === ACTION_TYPE);
			expect(ours.length).toBeGreaterThan(0);
			for (const node of ours) expect(node.credentials).toEqual({ [CREDENTIAL_TYPE]: credential });
		}
		for (const key of ['trigger', 'contractPrints'] as const) {
			const trigger = (await n8n.api.getWorkflow(imported.get(key)!.id)).nodes.find((node) => node.type === TRIGGER_TYPE);
			expect(trigger?.webhookId).toBe(loadExample(key).nodes[0].webhookId);
		}
	});
});

describe('stx-transfers-trigger.json', () => {
	it('registers its hook on activation, and formats one message per matching transfer', async () => {
		const workflowId = imported.get('trigger')!.id;
		await n8n.api.activate(workflowId);
		const [hook, ...others] = emu.hooks(API_KEY);
		expect(others).toEqual([]);
		expect(hook.status.enabled).toBe(true);
		expect(hook.definition.filters.events).toEqual([{ type: 'stx_transfer', sender: EXAMPLE_SENDER }]);
		expect(hook.definition.action.url).toBe(n8n.webhookUrl(`${String(loadExample('trigger').nodes[0].webhookId)}/webhook`));

		const [report] = await emu.injectBlock({
			height: 1,
			transactions: [
				{ kind: 'stx_transfer', sender: EXAMPLE_SENDER, recipient: BOB, amount: 1_500_000 },
				{ kind: 'stx_transfer', sender: BOB, recipient: CAROL, amount: 7_000_000 },
				{ kind: 'stx_transfer', sender: EXAMPLE_SENDER, recipient: CAROL, amount: 2_000_000 },
			],
		});
		expect(report.status).toBe(200);
		const hashes = report.payload.event.apply[0].transactions.map((tx) => tx.transaction_identifier.hash);
		expect(hashes).toHaveLength(2);

		const [execution] = await n8n.api.waitForExecutions(workflowId, 1);
		expect(execution.status).toBe('success');
		const items = execution.data?.resultData?.runData?.['Format message']?.[0]?.data?.main?.[0]?.map((item) => item.json);
		expect(items).toEqual([
			{
				message: `${EXAMPLE_SENDER} sent 1.5 STX to ${BOB} in block 1 (tx ${hashes[0]})`,
				sender: EXAMPLE_SENDER,
				recipient: BOB,
				amountStx: 1.5,
				blockHeight: 1,
				txHash: hashes[0],
				direction: 'apply',
			},
			{
				message: `${EXAMPLE_SENDER} sent 2 STX to ${CAROL} in block 1 (tx ${hashes[1]})`,
				sender: EXAMPLE_SENDER,
				recipient: CAROL,
				amountStx: 2,
				blockHeight: 1,
				txHash: hashes[1],
				direction: 'apply',
			},
		]);
	}, 60_000);
});

describe('contract-prints-trigger.json', () => {
	// As the Stacks node prints them: a tuple's keys in order.
	const MINT = '(tuple (amount u100) (event "mint"))';
	const FAILED = '(tuple (amount u25) (event "transfer"))';
	const BURN = '(tuple (amount u40) (event "burn"))';

	it('registers a print hook for the contract, and makes one message per print of a successful transaction', async () => {
		const workflowId = imported.get('contractPrints')!.id;
		await n8n.api.activate(workflowId);
		const url = n8n.webhookUrl(`${String(loadExample('contractPrints').nodes[0].webhookId)}/webhook`);
		const [hook, ...others] = emu.hooks(API_KEY).filter((candidate) => candidate.definition.action.url === url);
		expect(others).toEqual([]);
		expect(hook.status.enabled).toBe(true);
		expect(hook.definition.filters.events).toEqual([{ type: 'contract_log', contract_identifier: WATCHED }]);

		// Prints of the watched contract (one in a failed transaction), a print of another contract,
		// a call of the watched contract that prints nothing, and an STX transfer. Height 2: block 1 is
		// the one evaluate-hook.json evaluates.
		const reports = await emu.injectBlock({
			height: 2,
			transactions: [
				{ kind: 'contract_log', sender: BOB, contractIdentifier: WATCHED, topic: 'print', value: MINT },
				{ kind: 'contract_log', sender: CAROL, contractIdentifier: OTHER_CONTRACT, topic: 'print', value: '(tuple (event "mint") (amount u999))' },
				{ kind: 'stx_transfer', sender: BOB, recipient: CAROL, amount: 5_000_000 },
				{ kind: 'contract_log', sender: CAROL, contractIdentifier: WATCHED, topic: 'print', value: FAILED, status: 'abort_by_response' },
				{ kind: 'contract_call', sender: CAROL, contractIdentifier: WATCHED, functionName: 'transfer' },
				{ kind: 'contract_log', sender: CAROL, contractIdentifier: WATCHED, topic: 'print', value: BURN },
			],
		});
		// Only this example's hook matches (the STX-transfers example watches another sender).
		expect(reports.map((report) => [report.hookUuid, report.status])).toEqual([[hook.uuid, 200]]);
		const hashes = reports[0].payload.event.apply[0].transactions.map((tx) => tx.transaction_identifier.hash);
		expect(hashes).toHaveLength(3);
		// The example sets no option, so the service sends each print's value as hex alone (Hiro's options reference).
		const printed = reports[0].payload.event.apply[0].transactions.map((tx) => tx.operations.find((op) => op.type === 'contract_log')?.metadata);
		expect(printed.map((metadata) => typeof (metadata as { value?: unknown } | undefined)?.value)).toEqual(['string', 'string', 'string']);

		const [execution] = await n8n.api.waitForExecutions(workflowId, 1);
		expect(execution.status).toBe('success');
		printsExecutionId = String(execution.id);
		const output = (node: string) => execution.data?.resultData?.runData?.[node]?.[0]?.data?.main?.[0]?.map((item) => item.json) ?? [];

		// The trigger: one flat item per print of the watched contract, in block order, the value decoded.
		const events = output('Stacks Hooks Trigger');
		const common = { eventType: 'contract_log', contractIdentifier: WATCHED, topic: 'print', blockHeight: 2, direction: 'apply', network: 'testnet', hookUuid: hook.uuid };
		expect(events).toEqual([
			expect.objectContaining({ ...common, value: { event: 'mint', amount: '100' }, valueRepr: MINT, sender: BOB, txHash: hashes[0], txIndex: 0, txStatus: 'success', txSucceeded: true }),
			expect.objectContaining({ ...common, value: { event: 'transfer', amount: '25' }, valueRepr: FAILED, sender: CAROL, txHash: hashes[1], txIndex: 3, txStatus: 'abort_by_response', txSucceeded: false }),
			expect.objectContaining({ ...common, value: { event: 'burn', amount: '40' }, valueRepr: BURN, sender: CAROL, txHash: hashes[2], txIndex: 5, txStatus: 'success', txSucceeded: true }),
		]);
		for (const event of events) {
			// Flat: only the print's value is an object.
			expect(Object.entries(event).filter(([, value]) => typeof value === 'object' && value !== null).map(([key]) => key)).toEqual(['value']);
		}

		// The filter drops the failed transaction's print; the message names what the contract printed.
		expect(output('Successful transactions only').map((item) => item.txHash)).toEqual([hashes[0], hashes[2]]);
		expect(output('Format message')).toEqual([
			{ message: `mint of 100 by ${BOB} in block 2 (tx ${hashes[0]})`, event: 'mint', amount: '100', sender: BOB, blockHeight: 2, txHash: hashes[0] },
			{ message: `burn of 40 by ${CAROL} in block 2 (tx ${hashes[2]})`, event: 'burn', amount: '40', sender: CAROL, blockHeight: 2, txHash: hashes[2] },
		]);
	}, 60_000);
});

describe('register-and-list-hooks.json', () => {
	it('registers a disabled hook to the placeholder URL, then lists every hook of the account', async () => {
		const before = emu.hooks(API_KEY).map((hook) => hook.uuid);
		const out = await runExample('registerAndList');
		const [registered] = out['Register hook'];
		expect(registered).toMatchObject({
			definition: {
				name: 'Example: STX transfers from ST1PQ…GZGM',
				filters: { events: [{ type: 'stx_transfer', sender: EXAMPLE_SENDER }] },
				action: { type: 'http_post', url: 'https://127.0.0.1:9/stacks-hooks-example' },
			},
			status: { status: 'new', enabled: false },
		});
		expect(out['List hooks'].map((hook) => hook.uuid)).toEqual([...before, registered.uuid]);
		expect(emu.hooks(API_KEY).map((hook) => hook.uuid)).toEqual([...before, registered.uuid]);
	}, 120_000);
});

describe('evaluate-hook.json', () => {
	it('registers a hook, evaluates it against block 1 and reads it back', async () => {
		const out = await runExample('evaluate');
		expect(out['Block to test']).toEqual([{ blockHeight: 1 }]);
		const { uuid } = out['Register hook'][0] as { uuid: string };
		expect(out['Evaluate against block']).toEqual([{ uuid, evaluated: true, block_height: 1 }]);
		expect(out['Get hook']).toEqual([expect.objectContaining({ uuid, definition: expect.objectContaining({ name: 'Example: evaluate STX transfers from ST1PQ…GZGM' }) })]);

		await emu.settled();
		const hook = emu.hooks(API_KEY).find((candidate) => candidate.uuid === uuid)!;
		expect(hook.status).toMatchObject({ enabled: false, last_evaluated_block_height: 1, evaluated_block_count: 1 });
		// Block 1 holds two transfers from the sender: the matches went to the placeholder URL, where nothing listens.
		const delivery = emu.deliveries.find((report) => report.hookUuid === uuid)!;
		expect(delivery).toMatchObject({ url: 'https://127.0.0.1:9/stacks-hooks-evaluate-example', blockHeight: 1, status: null });
		expect(delivery.payload.event.apply[0].transactions).toHaveLength(2);
	}, 120_000);
});

describe('rotate-consumer-secret.json', () => {
	it('rotates the account secret and outputs the new one', async () => {
		const out = await runExample('rotateSecret');
		const [result] = out['Rotate consumer secret'] as Array<{ secret: string; rotated: boolean }>;
		expect(result.rotated).toBe(true);
		expect(result.secret).toBe(emu.consumerSecret(API_KEY));
		expect(result.secret).not.toBe(SECRET);
	}, 120_000);
});

/* ------------------------------------------------------------------------------------------ */

/** Set by `npm run screenshots`: the README's pictures are drawn anew into test/examples/screenshots/. */
const REFRESH_README_SCREENSHOTS = process.env.STACKS_HOOKS_SCREENSHOTS === '1';

/**
 * Saves a screenshot in test/artifacts/ (not tracked). The README's pictures go to
 * test/examples/screenshots/ too, but only under `npm run screenshots`: a test run leaves tracked
 * files as they are, and the command redraws them from the current code when it changed what they show.
 */
async function screenshot(browser: EditorBrowser, name: string, forReadme = false): Promise<void> {
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	const file = path.join(ARTIFACTS, name);
	await browser.page.mouse.move(1, 1); // no hover effects in the picture
	await browser.page.screenshot({ path: file });
	const readmeCopy = path.join(README_SCREENSHOTS, name);
	if (forReadme && REFRESH_README_SCREENSHOTS) {
		fs.mkdirSync(README_SCREENSHOTS, { recursive: true });
		fs.copyFileSync(file, readmeCopy);
	}
}

describe('the editor, in headless Chromium', () => {
	let browser: EditorBrowser;

	beforeAll(async () => {
		browser = await openBrowser(n8n.baseUrl);
		await signIn(browser.page, n8n.baseUrl, n8n.owner.email, n8n.owner.password);
	}, 15 * 60_000);

	afterAll(async () => {
		if (browser?.blocked.length) console.log(`requests the browser was refused (not n8n):\n${browser.blocked.join('\n')}`);
		await browser?.close();
	}, 30_000);

	it('shows the trigger example with the package\'s icon and node names', async () => {
		const { page } = browser;
		await openWorkflow(page, n8n.baseUrl, imported.get('trigger')!.id);
		const trigger = canvasNode(page, 'Stacks Hooks Trigger');
		expect(await trigger.getAttribute('data-node-type')).toBe(TRIGGER_TYPE);
		expect(await trigger.innerText()).toContain('Stacks Hooks Trigger');
		const selector = '[data-test-id=canvas-node][data-node-name="Stacks Hooks Trigger"]';
		expect(await imageSources(page, selector)).toEqual([`${ICON_PATH}icons/stacksHooks.svg`]);
		expect(await imagesLoaded(page, selector)).toBe(true);
		expect(await canvasNode(page, 'Format message').isVisible()).toBe(true);
		await screenshot(browser, 'example-workflow.png', true);
	}, 60_000);

	it('opens the trigger\'s parameter panel: Trigger On, Output (One Item per Event among its options), Rollbacks, Sample Block', async () => {
		const { page } = browser;
		await openNodePanel(page, 'Stacks Hooks Trigger');
		const labels = await panelLabels(page);
		for (const label of ['Credential', 'Trigger On', 'Type', 'Sender', 'Hook Name', 'Output', 'Rollbacks', 'Sample Block', 'Options']) {
			expect(labels).toContain(label);
		}
		// Output, Rollbacks, then the notice and Sample Block.
		expect(labels.indexOf('Output')).toBeLessThan(labels.indexOf('Rollbacks'));
		expect(labels.indexOf('Rollbacks')).toBeLessThan(labels.indexOf('Sample Block'));
		expect(await page.inputValue('[data-test-id=ndv] [data-test-id=parameter-input-sender] input')).toBe(EXAMPLE_SENDER);
		expect(await page.inputValue('[data-test-id=ndv] [data-test-id=node-credentials-select] input')).toBe(CREDENTIAL_NAME);
		expect(await page.locator('[data-test-id=ndv] [data-test-id=node-version]').innerText()).toContain(
			'Stacks Hooks Trigger node version 1.1',
		);
		expect(await imageSources(page, '[data-test-id=ndv]')).toContain(`${ICON_PATH}icons/stacksHooks.svg`);

		// The Output options, as the dropdown lists them.
		const output = page.locator('[data-test-id=ndv] [data-test-id=parameter-input-output]');
		expect(await output.locator('input').inputValue()).toBe('One Item per Transaction');
		await output.click();
		const options = page.locator('.el-select-dropdown__item:visible');
		await options.first().waitFor({ timeout: 10_000 });
		const listed = (await options.allInnerTexts()).map((text) => text.split('\n').map((line) => line.trim()));
		expect(listed.map(([name]) => name)).toEqual(['One Item per Block', 'One Item per Event', 'One Item per Transaction', 'Whole Delivery']);
		expect(listed[1][1]).toMatch(/^Each event the filters above select .* as a flat item/);
		await page.waitForTimeout(300); // the dropdown's fade-in
		await screenshot(browser, 'trigger-output-options.png');
		await page.keyboard.press('Escape');
		await options.first().waitFor({ state: 'hidden', timeout: 10_000 });
		await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur?: () => void } | null } }).document.activeElement?.blur?.());

		// Sample Block, empty, under its notice.
		const sampleBlock = page.locator('[data-test-id=ndv] [data-test-id=parameter-input-sampleBlock] input');
		await sampleBlock.scrollIntoViewIfNeeded();
		expect(await sampleBlock.inputValue()).toBe('');
		expect(await sampleBlock.getAttribute('placeholder')).toBe('e.g. 3925130');
		const notice = page.locator('[data-test-id=ndv] [data-test-id=node-parameters] .notice', {
			hasText: 'Used only while listening for a test event in the editor; activation ignores the setting below',
		});
		expect(await notice.isVisible()).toBe(true);
		const [noticeBox, inputBox] = [await notice.boundingBox(), await sampleBlock.boundingBox()];
		expect(noticeBox!.y + noticeBox!.height).toBeLessThan(inputBox!.y);
		expect(inputBox!.y - (noticeBox!.y + noticeBox!.height)).toBeLessThan(100);
		await page.waitForTimeout(300);
		await screenshot(browser, 'trigger-panel.png', true);
		await closeNodePanel(page);
	}, 60_000);

	it('shows the print example\'s execution: the trigger\'s One Item per Event output, flat, the print value decoded', async () => {
		const { page } = browser;
		expect(printsExecutionId).toBeDefined(); // from the contract-prints-trigger.json test above
		await openExecution(page, n8n.baseUrl, imported.get('contractPrints')!.id, printsExecutionId!);
		// Three prints of the watched contract; the failed transaction's dropped by the filter.
		const edgeLabel = (from: string) => page.locator(`[data-test-id=edge-label][data-source-node-name="${from}"]`).innerText();
		expect(await edgeLabel('Stacks Hooks Trigger')).toBe('3 items');
		expect(await edgeLabel('Successful transactions only')).toBe('2 items');

		await openNodePanel(page, 'Stacks Hooks Trigger');
		expect(await page.inputValue('[data-test-id=ndv] [data-test-id=parameter-input-output] input')).toBe('One Item per Event');
		expect(await page.inputValue('[data-test-id=ndv] [data-test-id=parameter-input-contractIdentifier] input')).toBe(WATCHED);
		expect(await page.locator(`${OUTPUT_PANEL} [data-test-id=ndv-items-count]`).innerText()).toContain('3 items');

		// Table: one column per field.
		await page.click(`${OUTPUT_PANEL} [data-test-id=radio-button-table]`);
		await page.locator(`${OUTPUT_PANEL} table th`).first().waitFor({ timeout: 10_000 });
		const columns = (await page.locator(`${OUTPUT_PANEL} table th`).allInnerTexts()).map((text) => text.trim());
		for (const field of ['eventType', 'contractIdentifier', 'topic', 'value', 'valueRepr', 'sender', 'txHash', 'txSucceeded', 'txStatus', 'blockHeight', 'hookName']) {
			expect(columns).toContain(field);
		}

		// JSON: the first print's fields, visible; only `value` nests (event, amount).
		await page.click(`${OUTPUT_PANEL} [data-test-id=radio-button-json]`);
		const shown = (path: string) => page.locator(`${OUTPUT_PANEL} .vjs-value [data-path="[0].${path}"]`);
		await shown('eventType').waitFor({ timeout: 10_000 });
		const expected: Record<string, unknown> = {
			eventType: 'contract_log',
			contractIdentifier: WATCHED,
			topic: 'print',
			'value.event': 'mint',
			'value.amount': '100',
			sender: BOB,
			txSucceeded: true,
			blockHeight: 2,
		};
		for (const [path, value] of Object.entries(expected)) {
			expect(await shown(path).isVisible()).toBe(true);
			expect(await shown(path).innerText()).toBe(JSON.stringify(value));
		}
		const nested = await page.$$eval(`${OUTPUT_PANEL} .vjs-key [data-path^="[0]."]`, (keys) =>
			keys.map((key) => key.getAttribute('data-path') ?? '').filter((path) => path.split('.').length > 2),
		);
		// A tuple's keys in the order the Stacks node prints them.
		expect(nested).toEqual(['[0].value.amount', '[0].value.event']);
		await screenshot(browser, 'event-items.png', true);
		await closeNodePanel(page);
	}, 60_000);

	describe('Sample Block, as a user tries it: set in the trigger\'s panel, then "Execute step"', () => {
		const TRIGGER = 'Stacks Hooks Trigger';
		/** The copy's own webhook, so that its test URL is not the example's. */
		const SAMPLE_WEBHOOK_ID = '0d6c1f5e-7a92-4b38-9e41-3c8b2a5f6d70';
		/** Blocks no other case injects: one with prints of the watched contract, one without. */
		const SAMPLE_HEIGHT = 30;
		const NO_MATCH_HEIGHT = 31;
		/** How long a user would wait for the output (or the message) after clicking. */
		const SETTLE_MS = 15_000;
		/** After it settled, how long the editor must stay so (a late answer or push message could flip it back). */
		const STAYS_MS = 1_500;
		const SAMPLE_INPUT = '[data-test-id=ndv] [data-test-id=parameter-input-sampleBlock] input';
		const EXECUTE_BUTTON = '[data-test-id=ndv] [data-test-id=node-execute-button]';
		let workflowId: string;
		let traffic: TrafficRecorder;

		beforeAll(async () => {
			// The print example, activated above, would be delivered the sample block at once: its production
			// hook matches. Deactivated, the block is only stored, as an older block on the chain is.
			const example = imported.get('contractPrints')!.id;
			if ((await n8n.api.getWorkflow(example)).active) await n8n.api.deactivate(example);
			// A copy of the example (own name and webhook), so the example itself stays as shipped.
			const copy = loadExample('contractPrints', credential);
			copy.name = `${copy.name} (Sample Block)`;
			copy.nodes[0].webhookId = SAMPLE_WEBHOOK_ID;
			workflowId = (await n8n.api.createWorkflow(copy)).id;
			const stored = await emu.injectBlock({
				height: SAMPLE_HEIGHT,
				transactions: [
					{ kind: 'contract_log', sender: BOB, contractIdentifier: WATCHED, topic: 'print', value: '(tuple (event "mint") (amount u100))' },
					{ kind: 'stx_transfer', sender: BOB, recipient: CAROL, amount: 3_000_000 },
					{ kind: 'contract_log', sender: CAROL, contractIdentifier: OTHER_CONTRACT, topic: 'print', value: '(tuple (event "mint") (amount u999))' },
					{ kind: 'contract_log', sender: CAROL, contractIdentifier: WATCHED, topic: 'print', value: '(tuple (event "burn") (amount u40))' },
				],
			});
			const storedNoMatch = await emu.injectBlock({
				height: NO_MATCH_HEIGHT,
				transactions: [
					{ kind: 'contract_log', sender: CAROL, contractIdentifier: OTHER_CONTRACT, topic: 'print', value: '(tuple (event "mint") (amount u7))' },
					{ kind: 'stx_transfer', sender: BOB, recipient: CAROL, amount: 1_000_000 },
				],
			});
			expect([...stored, ...storedNoMatch]).toEqual([]); // no active hook matched: stored only
			traffic = recordTraffic(browser.page); // from the next navigation on, the push messages too
		}, 60_000);

		afterAll(() => traffic?.stop());

		/** What the editor shows of listening: the trigger panel's "Listening for test event", the Stop Listening button, the canvas's waiting stop button. */
		async function listeningShown(page: Page): Promise<string[]> {
			const shown: string[] = [];
			if (await page.locator('[data-test-id=trigger-listening]').filter({ visible: true }).count()) shown.push('trigger-listening panel');
			if (await page.getByText('Listening for test event').filter({ visible: true }).count()) shown.push('"Listening for test event"');
			if (await page.getByText('Stop Listening').filter({ visible: true }).count()) shown.push('"Stop Listening" button');
			if (await page.locator('[data-test-id=stop-execution-waiting-for-webhook-button]').filter({ visible: true }).count()) shown.push('canvas\'s waiting-for-webhook stop button');
			return shown;
		}

		const itemsCount = (page: Page) => page.locator(`${OUTPUT_PANEL} [data-test-id=ndv-items-count]`).filter({ visible: true });

		/** Polls `state` until `done` holds of it or `ms` passed; the last state read. */
		async function pollUntil<T>(state: () => Promise<T>, done: (value: T) => boolean, ms: number): Promise<{ value: T; ok: boolean; afterMs: number }> {
			const started = Date.now();
			for (;;) {
				const value = await state();
				if (done(value)) return { value, ok: true, afterMs: Date.now() - started };
				if (Date.now() - started > ms) return { value, ok: false, afterMs: Date.now() - started };
				await sleep(100);
			}
		}

		/** The order of the run request's answer and the execution's push messages, for the log and for failures. */
		function runTimeline(): string {
			const run = traffic.events.find((event) => event.kind === 'response' && /^POST \/rest\/workflows\/[^/]+\/run /.test(event.what));
			const push = (type: string) => traffic.events.find((event) => event.kind === 'push' && event.what === type);
			const received = push('testWebhookReceived');
			const parts = [
				`run answered +${run?.at ?? '?'} ms`,
				`testWebhookReceived +${received?.at ?? '?'} ms`,
				`executionStarted +${push('executionStarted')?.at ?? '?'} ms`,
				`executionFinished +${push('executionFinished')?.at ?? '?'} ms`,
			];
			const order = run && received ? (run.at < received.at ? `answer ${received.at - run.at} ms before the push` : `push ${run.at - received.at} ms BEFORE the answer`) : 'order unknown';
			return `${parts.join(', ')} (${order})`;
		}

		/** Closes n8n's toasts ("Node executed successfully"), so the picture shows the panel alone. */
		async function closeToasts(page: Page): Promise<void> {
			const close = page.locator('.el-notification .el-notification__closeBtn').filter({ visible: true });
			for (let tries = 0; tries < 5 && (await close.count()) > 0; tries++) {
				await close.first().click({ timeout: 2_000 }).catch(() => undefined);
				await page.waitForTimeout(400); // its fade-out
			}
		}

		async function setSampleBlock(page: Page, height: number): Promise<void> {
			const input = page.locator(SAMPLE_INPUT);
			await input.scrollIntoViewIfNeeded();
			await input.click();
			await input.press('ControlOrMeta+a');
			await input.pressSequentially(String(height), { delay: 30 });
			await input.press('Tab');
			await page.waitForTimeout(500); // n8n applies a parameter's value debounced
			expect(await input.inputValue()).toBe(String(height));
		}

		/** Clicks "Execute step" in the trigger's panel; the time of the click. */
		async function clickExecute(page: Page): Promise<number> {
			traffic.reset();
			const button = page.locator(EXECUTE_BUTTON);
			expect((await button.innerText()).trim()).toMatch(/^(Execute step|Listen for test event)$/);
			await button.click();
			return Date.now();
		}

		async function failWith(what: string, name: string): Promise<never> {
			await screenshot(browser, name);
			throw new Error(`${what}\n${runTimeline()}\npage traffic since the click:\n${traffic.lines().join('\n')}\n(screenshot: test/artifacts/${name})`);
		}

		it('shows the block\'s prints as the trigger\'s output within seconds, and stops listening: three listens in a row', async () => {
			const { page } = browser;
			await openWorkflow(page, n8n.baseUrl, workflowId);
			await openNodePanel(page, TRIGGER);
			await setSampleBlock(page, SAMPLE_HEIGHT);
			const evaluations = () => emu.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/evaluate')).length;

			for (let attempt = 1; attempt <= 3; attempt++) {
				const evaluatedBefore = evaluations();
				const clickedAt = await clickExecute(page);
				const settled = await pollUntil(
					async () => ({ listening: await listeningShown(page), items: (await itemsCount(page).allInnerTexts()).join(' ') }),
					({ listening, items }) => listening.length === 0 && /\b2 items\b/.test(items) && traffic.events.some((event) => event.what === 'executionFinished'),
					SETTLE_MS - (Date.now() - clickedAt),
				);
				const afterMs = Date.now() - clickedAt;
				if (!settled.ok) {
					await failWith(
						`listen ${attempt}: ${afterMs} ms after the click the editor shows ${JSON.stringify(settled.value)} (listening: ${settled.value.listening.join(', ') || 'none'})`,
						`sample-block-stuck-${attempt}.png`,
					);
				}
				console.log(`Sample Block in the editor, listen ${attempt}: output shown and listening over ${afterMs} ms after the click; ${runTimeline()}`);
				// It stays so: no late answer puts the editor back to listening.
				await sleep(STAYS_MS);
				const later = await listeningShown(page);
				if (later.length) await failWith(`listen ${attempt}: ${STAYS_MS} ms after the output came, the editor shows ${later.join(', ')} again`, `sample-block-stuck-${attempt}.png`);
				expect(evaluations()).toBe(evaluatedBefore + 1); // this listen's test hook, evaluated against the sample block

				// This listen's test execution: the two prints of the watched contract, in block order, decoded.
				const executions = await n8n.api.waitForExecutions(workflowId, attempt, { timeoutMs: 10_000 });
				expect(executions).toHaveLength(attempt);
				const items = executions[attempt - 1].data?.resultData?.runData?.[TRIGGER]?.[0]?.data?.main?.[0]?.map((item) => item.json);
				expect(items).toEqual([
					expect.objectContaining({ contractIdentifier: WATCHED, value: { event: 'mint', amount: '100' }, sender: BOB, blockHeight: SAMPLE_HEIGHT }),
					expect.objectContaining({ contractIdentifier: WATCHED, value: { event: 'burn', amount: '40' }, sender: CAROL, blockHeight: SAMPLE_HEIGHT }),
				]);

				// What the output panel shows of it: 2 items, the first print's value decoded (the JSON view
				// renders only the lines in sight).
				expect(await itemsCount(page).innerText()).toContain('2 items');
				await page.click(`${OUTPUT_PANEL} [data-test-id=radio-button-json]`);
				const shown = (path: string) => page.locator(`${OUTPUT_PANEL} .vjs-value [data-path="[0].${path}"]`);
				await shown('value.event').waitFor({ timeout: 10_000 });
				const expected: Record<string, unknown> = { contractIdentifier: WATCHED, 'value.event': 'mint', 'value.amount': '100', sender: BOB, blockHeight: SAMPLE_HEIGHT };
				for (const [path, value] of Object.entries(expected)) {
					expect(await shown(path).isVisible()).toBe(true);
					expect(await shown(path).innerText()).toBe(JSON.stringify(value));
				}
			}

			// The picture: Sample Block set in the parameters, the block's prints beside it.
			await page.locator(SAMPLE_INPUT).scrollIntoViewIfNeeded();
			expect(await page.locator(SAMPLE_INPUT).isVisible()).toBe(true);
			await closeToasts(page);
			await screenshot(browser, 'sample-block.png', true);
		}, 120_000);

		it('says so when the Sample Block has no print of the contract, and stops listening', async () => {
			const { page } = browser;
			await openWorkflow(page, n8n.baseUrl, workflowId); // afresh, whatever the case above left
			await openNodePanel(page, TRIGGER);
			await setSampleBlock(page, NO_MATCH_HEIGHT);
			const executionsBefore = (await n8n.api.executions({ workflowId })).length;
			const clickedAt = await clickExecute(page);
			const message = `No event in block ${NO_MATCH_HEIGHT} matches this trigger's filters`;
			const settled = await pollUntil(
				async () => ({ listening: await listeningShown(page), message: await page.getByText(message).filter({ visible: true }).count() }),
				({ listening, message: shown }) => listening.length === 0 && shown > 0,
				SETTLE_MS,
			);
			const afterMs = Date.now() - clickedAt;
			if (!settled.ok) {
				await failWith(`no match: ${afterMs} ms after the click the editor shows ${JSON.stringify(settled.value)} (message "${message}" shown ${settled.value.message} times)`, 'sample-block-no-match-stuck.png');
			}
			console.log(`Sample Block in the editor, no match: message shown and listening over ${afterMs} ms after the click`);
			await sleep(STAYS_MS);
			expect(await listeningShown(page)).toEqual([]);
			await screenshot(browser, 'sample-block-no-match.png'); // the toast, slid in
			expect((await n8n.api.executions({ workflowId })).length).toBe(executionsBefore); // no test execution
			await closeNodePanel(page);
		}, 60_000);
	});

	it('opens the action node\'s panel: Resource, Operation and the Register fields', async () => {
		const { page } = browser;
		await openWorkflow(page, n8n.baseUrl, imported.get('registerAndList')!.id);
		const selector = '[data-test-id=canvas-node][data-node-name="Register hook"]';
		expect(await canvasNode(page, 'Register hook').getAttribute('data-node-type')).toBe(ACTION_TYPE);
		expect(await imageSources(page, selector)).toEqual([`${ICON_PATH}icons/stacksHooks.svg`]);
		expect(await imagesLoaded(page, selector)).toBe(true);

		await openNodePanel(page, 'Register hook');
		const labels = await panelLabels(page);
		for (const label of ['Credential', 'Resource', 'Operation', 'Specify By', 'Name', 'Webhook URL', 'Events', 'Options']) {
			expect(labels).toContain(label);
		}
		expect(await page.inputValue('[data-test-id=ndv] [data-test-id=parameter-input-resource] input')).toBe('Hook');
		expect(await page.inputValue('[data-test-id=ndv] [data-test-id=parameter-input-operation] input')).toBe('Register');
		expect(await page.locator('[data-test-id=ndv] [data-test-id=node-version]').innerText()).toContain('Stacks Hooks node version 1');
		await screenshot(browser, 'action-panel.png');
		await closeNodePanel(page);
	}, 60_000);

	it('offers the nodes as "Stacks Hooks" in the nodes panel, with the icon', async () => {
		const { page } = browser;
		await page.click('[data-test-id=node-creator-plus-button]');
		await page.waitForSelector('[data-test-id=node-creator]', { timeout: 10_000 });
		await page.locator('[data-test-id=node-creator-search-bar] input, input[data-test-id=node-creator-search-bar]').first().fill('Stacks Hooks');
		// The categories are listed at once; the search result replaces them.
		await page.locator('[data-test-id=node-creator-item-name]', { hasText: 'Stacks Hooks' }).first().waitFor({ timeout: 10_000 });
		const names = await page.$$eval('[data-test-id=node-creator-item-name]', (items) =>
			items.map((item) => (item as unknown as { innerText: string }).innerText.trim()),
		);
		expect(names).toContain('Stacks Hooks');
		expect((await imageSources(page, '[data-test-id=node-creator]')).some((src) => src.startsWith(ICON_PATH))).toBe(true);
		await screenshot(browser, 'node-creator.png');
	}, 60_000);
});
