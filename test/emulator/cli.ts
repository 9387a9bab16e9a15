/* eslint-disable no-console, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Runs the emulator from a shell, or feeds a running one a block.
 *
 *   node .build/test/emulator/cli.js [serve options]
 *   node .build/test/emulator/cli.js inject [inject options]
 */
import { parseArgs } from 'node:util';

import type { BlockInput } from './chain';
import { CONTROL_PREFIX } from './control';
import { startEmulator } from './server';
import type { DeliveryReport } from './types';

const USAGE = `Usage:
  cli.js [--port 3999] [--host 127.0.0.1] [--api-key KEY] [--consumer-secret S] [--network testnet|mainnet]
         [--allow-http-webhooks] [--delivery-insecure] [--latency-ms N]
      Starts the emulator and runs until SIGINT/SIGTERM.
  cli.js inject [--origin http://127.0.0.1:3999] [--height N] [--transfers K] [--sender ST...]
         [--recipient ST...] [--amount MICRO_STX] [--rollback]
      Sends a block of K STX transfers to a running emulator and prints the deliveries.`;

class UsageError extends Error {}

function integer(name: string, raw: string | undefined, min: number): number | undefined {
	if (raw === undefined) return undefined;
	const value = Number(raw);
	if (!Number.isSafeInteger(value) || value < min) throw new UsageError(`--${name} must be an integer >= ${min}`);
	return value;
}

async function serve(args: string[]): Promise<void> {
	const { values } = parseArgs({
		args,
		options: {
			port: { type: 'string', default: '3999' },
			host: { type: 'string', default: '127.0.0.1' },
			'api-key': { type: 'string', default: 'test-api-key' },
			'consumer-secret': { type: 'string' },
			network: { type: 'string', default: 'testnet' },
			'allow-http-webhooks': { type: 'boolean', default: false },
			'delivery-insecure': { type: 'boolean', default: false },
			'latency-ms': { type: 'string' },
		},
	});
	const { network } = values;
	if (network !== 'testnet' && network !== 'mainnet') throw new UsageError('--network must be testnet or mainnet');
	const apiKey = values['api-key'];
	const emulator = await startEmulator({
		host: values.host,
		port: integer('port', values.port, 0),
		network,
		accounts: [{ apiKey, consumerSecret: values['consumer-secret'] }],
		allowHttpWebhooks: values['allow-http-webhooks'],
		deliveryInsecure: values['delivery-insecure'],
		latencyMs: integer('latency-ms', values['latency-ms'], 0),
	});
	console.log(`Stacks hooks emulator url=${emulator.url} apiKey=${apiKey} consumerSecret=${emulator.consumerSecret()}`);
	const stop = (): void => void emulator.close().then(() => process.exit(0));
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

async function control<T>(origin: string, path: string, init?: RequestInit): Promise<T> {
	const response = await fetch(`${origin}${CONTROL_PREFIX}${path}`, init);
	const text = await response.text();
	if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${path} answered ${response.status}: ${text}`);
	return JSON.parse(text) as T;
}

async function inject(args: string[]): Promise<void> {
	const { values } = parseArgs({
		args,
		options: {
			origin: { type: 'string', default: 'http://127.0.0.1:3999' },
			height: { type: 'string' },
			transfers: { type: 'string', default: '1' },
			sender: { type: 'string', default: 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM' },
			recipient: { type: 'string', default: 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG' },
			amount: { type: 'string', default: '1000000' },
			rollback: { type: 'boolean', default: false },
		},
	});
	const origin = values.origin.replace(/\/$/, '');
	const height =
		integer('height', values.height, 0) ?? Math.max(0, ...(await control<{ blockHeights: number[] }>(origin, '/state')).blockHeights) + 1;
	const count = integer('transfers', values.transfers, 0) ?? 1;
	const transfer = { kind: 'stx_transfer' as const, sender: values.sender, recipient: values.recipient, amount: integer('amount', values.amount, 0) ?? 0 };
	const block: BlockInput = { height, transactions: Array.from({ length: count }, () => transfer) };
	const { deliveries } = await control<{ deliveries: DeliveryReport[] }>(origin, values.rollback ? '/blocks?rollback=1' : '/blocks', {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(block),
	});
	console.log(`block ${height} ${values.rollback ? 'rolled back' : 'applied'}: ${count} transfer(s), ${deliveries.length} delivery(ies)`);
	for (const report of deliveries) {
		const delivered = report.payload.event.apply[0] ?? report.payload.event.rollback[0];
		const parts = [`hook=${report.hookUuid}`, `url=${report.url}`, `status=${report.status ?? 'none'}`, `transactions=${delivered?.transactions.length ?? 0}`];
		if (report.error) parts.push(`error=${JSON.stringify(report.error)}`);
		console.log(parts.join(' '));
	}
}

async function main(argv: string[]): Promise<void> {
	const [command, ...rest] = argv;
	if (['help', '--help', '-h'].includes(command)) console.log(USAGE);
	else await (command === 'inject' ? inject(rest) : serve(argv));
}

main(process.argv.slice(2)).catch((error: unknown) => {
	console.error(error instanceof Error ? error.message : String(error));
	if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
		console.error(USAGE);
		process.exit(2);
	}
	process.exit(1);
});
