/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * `npm run emulate`: makes the emulated chain of a running `npm start` produce
 * a block of STX transfers from the examples' sender, prints what the emulator
 * delivered, and what n8n made of it (the trigger example's executions).
 *
 *   npm run emulate [-- --transfers 3] [-- --sender ST...]
 */
import * as fs from 'fs';
import { setTimeout as sleep } from 'timers/promises';
import { parseArgs } from 'util';

import { Agent } from 'undici';

import type { BlockInput } from '../../emulator/chain';
import type { EmulatorState } from '../../emulator/control';
import type { DeliveryReport } from '../../emulator/types';
import { type Execution, httpRequest, N8nApi } from '../../support/n8n/api';
import { EXAMPLE_SENDER } from '../../support/examples';
import { readRunInfo, type RunInfo } from './run-info';

const RECIPIENTS = [
	'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG',
	'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC',
	'ST2NEB84ASENDXKYGJPQW86YXQCEFEX2ZQPG87ND',
];
const AMOUNTS = [1_500_000, 2_000_000, 250_000];
const WAIT_FOR_EXECUTIONS_MS = 20_000;

class Refusal extends Error {}

function runningStart(): RunInfo {
	const info = readRunInfo();
	if (!info) throw new Refusal('npm start is not running. Start it first (npm start), then run npm run emulate in another terminal.');
	try {
		process.kill(info.pid, 0);
	} catch {
		throw new Refusal(`npm start (pid ${info.pid}) is no longer running. Start it again (npm start).`);
	}
	return info;
}

async function control<T>(info: RunInfo, apiPath: string, body?: unknown): Promise<T> {
	const res = await httpRequest(`${info.emulatorOrigin}/_emulator${apiPath}`, body === undefined ? {} : { method: 'POST', body });
	if (res.status >= 400) throw new Error(`the emulator answered ${res.status} to ${apiPath}: ${res.text}`);
	return res.json as T;
}

/** The executions of the trigger example, through n8n's public API (trusting its self-signed certificate). */
async function triggerExecutions(info: RunInfo, includeData = false): Promise<Execution[]> {
	const trust = new Agent({ connect: { ca: fs.readFileSync(info.certificateFile, 'utf8') } });
	const api = new N8nApi((apiPath, options) => httpRequest(`${info.n8nUrl}${apiPath}`, options, trust), { email: '', password: '' });
	api.apiKey = info.apiKey;
	return api.executions({ workflowId: info.triggerWorkflowId, includeData });
}

function makeBlock(height: number, count: number, sender: string): BlockInput {
	return {
		height,
		transactions: Array.from({ length: count }, (_, i) => ({
			kind: 'stx_transfer' as const,
			sender,
			recipient: RECIPIENTS[i % RECIPIENTS.length],
			amount: AMOUNTS[i % AMOUNTS.length],
		})),
	};
}

function describeDeliveries(deliveries: DeliveryReport[], state: EmulatorState): void {
	const hookName = (uuid: string) =>
		state.accounts.flatMap((account) => account.hooks).find((hook) => hook.uuid === uuid)?.definition.name ?? uuid;
	if (deliveries.length === 0) {
		console.log('No hook matched, so nothing was delivered. Is the trigger example active in n8n?');
		return;
	}
	for (const report of deliveries) {
		const count = report.payload.event.apply.reduce((sum, block) => sum + block.transactions.length, 0);
		const outcome = report.status ? `answered HTTP ${report.status}` : 'could not be reached';
		console.log(`Delivered ${count} transaction(s) to hook "${hookName(report.hookUuid)}":`);
		console.log(`  ${report.url} ${outcome}${report.error ? ` (${report.error})` : ''}`);
	}
}

const isFinished = (execution: Execution) => !['new', 'running', 'waiting'].includes(execution.status);

/** Waits for executions newer than `afterId` to finish; prints each one's messages. */
async function reportExecutions(info: RunInfo, afterId: number): Promise<void> {
	const deadline = Date.now() + WAIT_FOR_EXECUTIONS_MS;
	let fresh: Execution[] = [];
	while (Date.now() < deadline) {
		fresh = (await triggerExecutions(info)).filter((execution) => Number(execution.id) > afterId);
		if (fresh.length > 0 && fresh.every(isFinished)) break;
		await sleep(500);
	}
	if (fresh.length === 0) {
		console.log(`n8n recorded no new execution of the trigger example within ${WAIT_FOR_EXECUTIONS_MS / 1000} s.`);
		return;
	}
	const withData = (await triggerExecutions(info, true)).filter((execution) => Number(execution.id) > afterId);
	for (const execution of withData.sort((a, b) => Number(a.id) - Number(b.id))) {
		console.log(`\nn8n execution ${execution.id}: ${execution.status}`);
		for (const message of messagesOf(execution)) console.log(`  ${message}`);
		console.log(`  ${info.n8nUrl}/workflow/${info.triggerWorkflowId}/executions/${execution.id}`);
	}
}

/** The `message` of each item the last node that ran output. */
function messagesOf(execution: Execution): string[] {
	const result = execution.data?.resultData;
	const last = result?.lastNodeExecuted;
	const items = (last && result?.runData?.[last]?.[0]?.data?.main?.[0]) || [];
	return items.map((item) => String(item.json.message ?? JSON.stringify(item.json)));
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			transfers: { type: 'string', default: '3' },
			sender: { type: 'string', default: EXAMPLE_SENDER },
		},
	});
	const count = Number(values.transfers);
	if (!Number.isInteger(count) || count < 1 || count > 100) throw new Refusal('--transfers must be a whole number from 1 to 100');
	const info = runningStart();

	const before = await control<EmulatorState>(info, '/state');
	const latest = (await triggerExecutions(info)).reduce((max, execution) => Math.max(max, Number(execution.id)), 0);
	const height = Math.max(0, ...before.blockHeights) + 1;
	console.log(`Block ${height}: ${count} STX transfer(s) from ${values.sender}.`);
	const { deliveries } = await control<{ deliveries: DeliveryReport[] }>(info, '/blocks', makeBlock(height, count, values.sender));
	describeDeliveries(deliveries, await control<EmulatorState>(info, '/state'));
	if (deliveries.some((report) => report.status !== null && report.status < 300)) await reportExecutions(info, latest);
}

main().catch((error: unknown) => {
	console.error(error instanceof Refusal ? error.message : `npm run emulate failed: ${(error as Error).message}`);
	process.exit(1);
});
