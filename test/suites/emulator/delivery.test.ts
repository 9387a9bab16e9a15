/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** Deliveries: what reaches a webhook, when, with which headers; evaluate, rollback, https. */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	checkDelivery,
	clarityPair,
	makeBlock,
	startEmulator,
	type DeliveryPayload,
	type Emulator,
	type HookRecord,
} from '../../emulator/index';
import {
	ALICE,
	API_KEY,
	apiClient,
	BOB,
	CAROL,
	definition,
	events,
	FT,
	NFT,
	startReceiver,
	TOKEN,
	type ApiCall,
	type Receiver,
} from './helpers';

let emulator: Emulator;
let receiver: Receiver;
let api: ApiCall;

beforeAll(async () => {
	[emulator, receiver] = await Promise.all([
		startEmulator({ allowHttpWebhooks: true }),
		startReceiver(),
	]);
	api = apiClient(emulator);
});
afterAll(() => Promise.all([emulator.close(), receiver.close()]));
beforeEach(() => {
	emulator.reset();
	receiver.received.length = 0;
	receiver.status = 200;
});

async function hook(
	filters = events({ type: 'stx_transfer', sender: ALICE }),
	enabled = true,
): Promise<HookRecord> {
	const answer = await api<HookRecord>('POST', '/me/', {
		...definition({ filters, action: { type: 'http_post', url: receiver.url } }),
		options: { enable_on_registration: enabled },
	});
	expect(answer.status).toBe(200);
	return answer.body;
}

const transfer = (sender: string, amount = 1_000_000) => ({
	kind: 'stx_transfer' as const,
	sender,
	recipient: CAROL,
	amount,
});

function deliveredTxids(): string[][] {
	return receiver.received.map(({ body }) => {
		const { apply, rollback } = (body as DeliveryPayload).event;
		return [...apply, ...rollback].flatMap((block) =>
			block.transactions.map((tx) => tx.transaction_identifier.hash),
		);
	});
}

describe('streaming deliveries', () => {
	it('POSTs the matching transactions in the real payload shape, with the consumer secret', async () => {
		const registered = await hook();
		const block = makeBlock({ height: 7, transactions: [transfer(ALICE), transfer(BOB)] });
		const reports = await emulator.injectBlock(block);

		expect(reports).toHaveLength(1);
		expect(reports[0]).toMatchObject({
			hookUuid: registered.uuid,
			url: receiver.url,
			status: 200,
			blockHeight: 7,
		});
		expect(receiver.received).toHaveLength(1);
		const { headers, body } = receiver.received[0];
		expect(headers['content-type']).toBe('application/json');
		expect(headers['user-agent']).toBe('stacks-hooks-emulator');
		expect(headers['x-hook-consumer-secret']).toBe(emulator.consumerSecret());
		expect(checkDelivery(body)).toEqual({ ok: true, errors: [] });

		const payload = body as DeliveryPayload;
		expect(payload.chainhook).toEqual({ uuid: registered.uuid, name: 'payments' });
		expect(payload.event).toMatchObject({ chain: 'stacks', network: 'testnet', rollback: [] });
		expect(payload.event.apply[0].block_identifier).toEqual(block.block_identifier);
		expect(deliveredTxids()).toEqual([[block.transactions[0].transaction_identifier.hash]]);
		const [fee, debit, credit] = payload.event.apply[0].transactions[0].operations;
		expect([fee.type, debit.type, credit.type]).toEqual([
			'fee',
			'token_transfer',
			'token_transfer',
		]);
		expect(debit).toMatchObject({
			account: { address: ALICE },
			amount: { value: '-1000000', currency: { symbol: 'STX', decimals: 6 } },
		});
		expect(credit).toMatchObject({ account: { address: CAROL }, amount: { value: '1000000' } });

		expect(emulator.hooks()[0].status).toMatchObject({
			evaluated_block_count: 1,
			last_evaluated_block_height: 7,
			occurrence_count: 1,
			last_occurrence_block_height: 7,
		});
	});

	it('ORs the event filters of a hook', async () => {
		await hook(
			events(
				{ type: 'stx_transfer', sender: ALICE },
				{ type: 'contract_call', contract_identifier: TOKEN, function_name: 'claim' },
				{ type: 'ft_transfer', asset_identifier: FT, receiver: CAROL },
			),
		);
		const block = makeBlock({
			height: 8,
			transactions: [
				transfer(BOB),
				transfer(ALICE),
				{ kind: 'contract_call', sender: BOB, contractIdentifier: TOKEN, functionName: 'claim' },
				{ kind: 'contract_call', sender: BOB, contractIdentifier: TOKEN, functionName: 'stake' },
				{ kind: 'ft_transfer', sender: BOB, recipient: CAROL, assetIdentifier: FT, amount: 5 },
				{ kind: 'ft_transfer', sender: CAROL, recipient: BOB, assetIdentifier: FT, amount: 5 },
			],
		});
		await emulator.injectBlock(block);
		const hashes = block.transactions.map((tx) => tx.transaction_identifier.hash);
		expect(deliveredTxids()).toEqual([[hashes[1], hashes[2], hashes[4]]]);
	});

	it('sends nothing for a block without a match, but counts the evaluation', async () => {
		await hook();
		const reports = await emulator.injectBlock({ height: 9, transactions: [transfer(BOB)] });
		expect(reports).toEqual([]);
		expect(receiver.received).toEqual([]);
		expect(emulator.hooks()[0].status).toMatchObject({
			evaluated_block_count: 1,
			occurrence_count: 0,
		});
	});

	it('sends nothing to a disabled hook', async () => {
		await hook(undefined, false);
		expect(await emulator.injectBlock({ height: 10, transactions: [transfer(ALICE)] })).toEqual([]);
		expect(receiver.received).toEqual([]);
	});

	it('delivers a rollback in `rollback` and forgets the block', async () => {
		const registered = await hook();
		const block = { height: 11, transactions: [transfer(ALICE)] };
		await emulator.injectBlock(block);
		await emulator.injectRollback(block);
		const second = receiver.received[1].body as DeliveryPayload;
		expect(checkDelivery(second).ok).toBe(true);
		expect(second.event.apply).toEqual([]);
		expect(second.event.rollback.map((b) => b.block_identifier.index)).toEqual([11]);

		await api('POST', `/me/${registered.uuid}/evaluate`, { block_height: 11 });
		await emulator.settled();
		expect(receiver.received).toHaveLength(2);
	});

	it('counts a match as an occurrence when it is evaluated, whether or not its delivery goes through', async () => {
		await hook();
		receiver.status = 500;
		const [report] = await emulator.injectBlock({ height: 12, transactions: [transfer(ALICE)] });
		expect(report).toMatchObject({ status: 500, error: 'Receiver answered 500' });
		expect(emulator.deliveries).toEqual([report]);
		expect(emulator.hooks()[0].status).toMatchObject({
			evaluated_block_count: 1,
			occurrence_count: 1,
			last_occurrence_block_height: 12,
		});
	});

	it('expires a hook after expire_after_occurrences deliveries', async () => {
		await api('POST', '/me/', {
			...definition({ action: { type: 'http_post', url: receiver.url } }),
			options: { enable_on_registration: true, expire_after_occurrences: 1 },
		});
		await emulator.injectBlock({ height: 14, transactions: [transfer(ALICE)] });
		expect(emulator.hooks()[0].status).toMatchObject({
			status: 'expired',
			enabled: false,
			occurrence_count: 1,
		});
		expect(await emulator.injectBlock({ height: 15, transactions: [transfer(ALICE)] })).toEqual([]);
		expect(receiver.received).toHaveLength(1);
	});

	it('reports an unreachable webhook as a network error', async () => {
		await api(
			'POST',
			'/me/',
			definition({
				action: { type: 'http_post', url: 'http://127.0.0.1:1/down' },
				options: { enable_on_registration: true },
			}),
		);
		const [report] = await emulator.injectBlock({ height: 13, transactions: [transfer(ALICE)] });
		expect(report.status).toBeNull();
		expect(report.error).toContain('ECONNREFUSED');
	});
});

describe("what a delivery carries, by the hook's options (Hiro's options reference: every option false by default)", () => {
	const MARKET = `${BOB}.market`;
	const PRINT = '(tuple (event "listed") (item u42))';
	/** A block with a print, a call with an argument, a deployment and an NFT transfer. */
	const block = (height: number) =>
		makeBlock({
			height,
			transactions: [
				{ kind: 'contract_log', sender: ALICE, contractIdentifier: MARKET, value: PRINT },
				{ kind: 'contract_call', sender: ALICE, contractIdentifier: MARKET, functionName: 'buy', args: [{ name: 'item', type: 'uint', ...clarityPair('u42') }] },
				{ kind: 'contract_deploy', sender: ALICE, contractIdentifier: `${ALICE}.new-contract`, sourceCode: '(define-public (hello) (ok true))' },
				{ kind: 'nft_transfer', sender: ALICE, recipient: BOB, assetIdentifier: NFT, value: 350610 },
			],
		});
	const everything = events(
		{ type: 'contract_log', contract_identifier: MARKET },
		{ type: 'contract_call', contract_identifier: MARKET },
		{ type: 'contract_deploy', sender: ALICE },
		{ type: 'nft_transfer', asset_identifier: NFT },
	);

	async function deliveredWith(options: Record<string, boolean>, height: number): Promise<DeliveryPayload> {
		const answer = await api<HookRecord>('POST', '/me/', { ...definition({ filters: everything, action: { type: 'http_post', url: receiver.url } }), options: { enable_on_registration: true, ...options } });
		expect(answer.status).toBe(200);
		await emulator.injectBlock(block(height));
		const body = receiver.received.at(-1)!.body as DeliveryPayload;
		expect(checkDelivery(body).errors).toEqual([]);
		return body;
	}

	const operation = (body: DeliveryPayload, tx: number, type: string) =>
		body.event.apply[0].transactions[tx].operations.find((op) => op.type === type) as { metadata: Record<string, unknown> };

	it('sends Clarity values as hex alone, and no enrichment, when the hook sets no option', async () => {
		const body = await deliveredWith({}, 11);
		const [print, call, deploy, nft] = body.event.apply[0].transactions;
		expect(operation(body, 0, 'contract_log').metadata).toMatchObject({ value: clarityPair(PRINT).hex });
		expect(print.metadata.result).toBe('0x0703');
		// The arguments as the binary form of their list: (list u42).
		expect(operation(body, 1, 'contract_call').metadata).toMatchObject({ args: `0x0b00000001${clarityPair('u42').hex.slice(2)}` });
		expect(call.metadata.post_conditions).toBeUndefined();
		expect(operation(body, 2, 'contract_deploy').metadata).toEqual({ contract_identifier: `${ALICE}.new-contract`, clarity_version: 3 });
		expect(deploy.metadata.raw_tx).toBeUndefined();
		expect(body.event.apply[0].metadata).toBeUndefined();
		// NFT ids as Hiro's filter docs write them.
		expect(nft.operations.find((op) => op.type === 'token_transfer')).toMatchObject({ amount: { currency: { metadata: { value: 'u350610' } } } });
	});

	it('sends {hex, repr} with decode_clarity_values, the repr as Hiro prints it', async () => {
		const body = await deliveredWith({ decode_clarity_values: true }, 12);
		expect(operation(body, 0, 'contract_log').metadata).toMatchObject({ value: { hex: clarityPair(PRINT).hex, repr: PRINT } });
		expect(body.event.apply[0].transactions[0].metadata.result).toEqual({ hex: '0x0703', repr: '(ok true)' });
		expect(operation(body, 1, 'contract_call').metadata).toMatchObject({ args: [{ name: 'item', type: 'uint', hex: clarityPair('u42').hex, repr: 'u42' }] });
	});

	it('adds each enrichment only when its option is set', async () => {
		const body = await deliveredWith(
			{ include_contract_abi: true, include_contract_source_code: true, include_post_conditions: true, include_block_metadata: true, include_block_signatures: true },
			13,
		);
		expect(operation(body, 2, 'contract_deploy').metadata).toMatchObject({ source_code: '(define-public (hello) (ok true))', abi: expect.any(String) });
		expect(body.event.apply[0].transactions[1].metadata.post_conditions).toEqual({ mode: 'allow', post_conditions: [] });
		expect(body.event.apply[0].metadata).toMatchObject({ tx_count: 4, signatures: { signer_signatures: [expect.stringMatching(/^0x/)] } });

		const metadataOnly = await deliveredWith({ include_block_metadata: true }, 14);
		expect(metadataOnly.event.apply[0].metadata).toMatchObject({ tx_count: 4 });
		expect(metadataOnly.event.apply[0].metadata!.signatures).toBeUndefined();
		expect(operation(metadataOnly, 2, 'contract_deploy').metadata).toEqual({ contract_identifier: `${ALICE}.new-contract`, clarity_version: 3 });
	});

	it("sends NFT ids as their binary form when configured so, and still selects them by a filter's value", async () => {
		emulator.configure({ nftIds: 'hex' });
		try {
			const answer = await api<HookRecord>('POST', '/me/', {
				...definition({ filters: events({ type: 'nft_transfer', asset_identifier: NFT, value: 350610 }), action: { type: 'http_post', url: receiver.url } }),
				options: { enable_on_registration: true },
			});
			expect(answer.status).toBe(200);
			await emulator.injectBlock(block(15));
			expect(receiver.received).toHaveLength(1);
			const body = receiver.received[0].body as DeliveryPayload;
			const [nft] = body.event.apply[0].transactions;
			expect(nft.operations.find((op) => op.type === 'token_transfer')).toMatchObject({ amount: { currency: { metadata: { value: '0x0100000000000000000000000000055992' } } } });
		} finally {
			emulator.configure({ nftIds: 'repr' });
		}
	});

	it('refuses a print whose value is neither a Clarity repr nor its binary form, naming it', () => {
		expect(() => makeBlock({ height: 16, transactions: [{ kind: 'contract_log', sender: ALICE, contractIdentifier: MARKET, value: 'hello world' }] })).toThrow(
			/"hello world" is neither a Clarity value's repr nor its binary form/,
		);
	});
});

describe('how a hook stops delivering', () => {
	const block = (height: number) => makeBlock({ height, transactions: [transfer(ALICE)] });

	it('interrupts a hook after 3 failed deliveries in a row (enabled stays true) until it is enabled again', async () => {
		const registered = await hook();
		receiver.status = 500;
		for (let height = 1; height <= 3; height++) expect(await emulator.injectBlock(block(height))).toHaveLength(1);
		expect(emulator.hooks()[0].status).toMatchObject({ status: 'interrupted', enabled: true });
		expect(await emulator.injectBlock(block(4))).toEqual([]);

		receiver.status = 200;
		expect((await api('PATCH', `/me/${registered.uuid}/enabled`, { enabled: true })).status).toBe(204);
		expect(emulator.hooks()[0].status).toMatchObject({ status: 'streaming', enabled: true });
		expect(await emulator.injectBlock(block(5))).toEqual([expect.objectContaining({ status: 200 })]);
	});

	it('counts failures in a row only: a success in between starts again', async () => {
		await hook();
		for (const [height, status] of [[1, 500], [2, 500], [3, 200], [4, 500], [5, 500]] as const) {
			receiver.status = status;
			await emulator.injectBlock(block(height));
		}
		expect(emulator.hooks()[0].status.status).toBe('streaming');
	});

	it('takes the number of failures from its options, and can interrupt a hook at once', async () => {
		emulator.configure({ interruptAfterFailures: 1 });
		try {
			const [first, second] = [await hook(), await hook()];
			receiver.status = 503;
			await emulator.injectBlock(block(1));
			expect(emulator.hooks().map((found) => found.status.status)).toEqual(['interrupted', 'interrupted']);
			receiver.status = 200;
			await api('PATCH', `/me/${first.uuid}/enabled`, { enabled: true });
			await api('PATCH', `/me/${second.uuid}/enabled`, { enabled: true });
			emulator.interruptHook(second.uuid);
			expect((await emulator.injectBlock(block(2))).map((report) => report.hookUuid)).toEqual([first.uuid]);
			expect(() => emulator.interruptHook('00000000-0000-4000-8000-000000000000')).toThrow('no hook');
		} finally {
			emulator.configure({ interruptAfterFailures: 3 });
		}
	});

	it('delivers nothing to a disabled or deleted hook', async () => {
		const [off, gone] = [await hook(), await hook()];
		await api('PATCH', `/me/${off.uuid}/enabled`, { enabled: false });
		await api('DELETE', `/me/${gone.uuid}`);
		expect(await emulator.injectBlock(block(1))).toEqual([]);
	});
});

describe('consumer secret header', () => {
	it.each([
		['authorization' as const, (secret: string) => `Bearer ${secret}`],
		['x-chainhook-consumer-secret' as const, (secret: string) => secret],
	])('can carry the secret in %s', async (header, expected) => {
		emulator.configure({ secretHeader: header });
		try {
			await hook();
			await emulator.injectBlock({ height: 20, transactions: [transfer(ALICE)] });
			const { headers } = receiver.received[0];
			expect(headers[header]).toBe(expected(emulator.consumerSecret() ?? ''));
			expect(headers['x-hook-consumer-secret']).toBeUndefined();
		} finally {
			emulator.configure({ secretHeader: 'x-hook-consumer-secret' });
		}
	});

	it('sends the rotated secret, and none once the secret is deleted', async () => {
		await hook();
		const { body } = await api<{ secret: string }>('POST', '/me/secret');
		await emulator.injectBlock({ height: 21, transactions: [transfer(ALICE)] });
		await api('DELETE', '/me/secret');
		await emulator.injectBlock({ height: 22, transactions: [transfer(ALICE)] });
		expect(receiver.received.map(({ headers }) => headers['x-hook-consumer-secret'])).toEqual([
			body.secret,
			undefined,
		]);
	});
});

describe('evaluate', () => {
	it('delivers a stored block to that hook only, enabled or not, after answering 204', async () => {
		const target = await hook(undefined, false);
		await hook(undefined, false);
		const block = makeBlock({ height: 30, transactions: [transfer(ALICE)] });
		await emulator.injectBlock(block);
		expect(receiver.received).toEqual([]);

		const byHeight = await api('POST', `/me/${target.uuid}/evaluate`, { block_height: 30 });
		expect([byHeight.status, byHeight.body]).toEqual([204, undefined]);
		await emulator.settled();
		const byHash = await api('POST', `/me/${target.uuid}/evaluate`, {
			index_block_hash: block.block_identifier.hash,
		});
		expect(byHash.status).toBe(204);
		await emulator.settled();

		expect(receiver.received.map(({ body }) => (body as DeliveryPayload).chainhook.uuid)).toEqual([
			target.uuid,
			target.uuid,
		]);
		const status = emulator.hooks().find((h) => h.uuid === target.uuid)?.status;
		expect(status).toMatchObject({
			evaluated_block_count: 2,
			last_evaluated_block_height: 30,
			occurrence_count: 2,
		});
	});

	it('answers 204 and delivers nothing for an unknown block', async () => {
		const target = await hook();
		expect((await api('POST', `/me/${target.uuid}/evaluate`, { block_height: 999 })).status).toBe(
			204,
		);
		await emulator.settled();
		expect(receiver.received).toEqual([]);
		expect(emulator.hooks()[0].status.evaluated_block_count).toBe(0);
	});

	it.each([
		[{}],
		[{ block_height: -1 }],
		[{ block_height: 1, index_block_hash: '0xab' }],
		[{ height: 1 }],
	])('answers 400 to %j', async (body) => {
		const target = await hook();
		expect((await api('POST', `/me/${target.uuid}/evaluate`, body)).status).toBe(400);
	});
});

describe('control endpoints', () => {
	const control = (path: string, method = 'GET', body?: unknown) =>
		fetch(`${emulator.origin}/_emulator${path}`, {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});

	it('injects blocks, reports state and secrets, arms faults and resets, without an API key', async () => {
		const registered = await hook();
		const injected = await control('/blocks', 'POST', {
			height: 40,
			transactions: [transfer(ALICE)],
		});
		const { deliveries } = (await injected.json()) as {
			deliveries: Array<{ hookUuid: string; status: number }>;
		};
		expect(deliveries.map((d) => [d.hookUuid, d.status])).toEqual([[registered.uuid, 200]]);

		const state = (await (await control('/state')).json()) as {
			blockHeights: number[];
			deliveries: number;
		};
		expect(state).toMatchObject({ blockHeights: [40], deliveries: 1 });
		expect(await (await control(`/secret?apiKey=${API_KEY}`)).json()).toEqual({
			secret: emulator.consumerSecret(),
		});

		expect((await control('/faults', 'POST', { count: 1, status: 500 })).status).toBe(204);
		expect((await api('GET', '/me/')).status).toBe(500);
		expect((await control('/blocks', 'POST', { height: 'x', transactions: [] })).status).toBe(400);

		const config = await control('/config', 'PATCH', { rateLimit: { limit: 1, windowMs: 60_000 } });
		expect(await config.json()).toMatchObject({ rateLimit: { limit: 1, windowMs: 60_000 } });
		const limited = await api('GET', '/me/');
		expect([limited.status, limited.headers.get('ratelimit-limit')]).toEqual([429, '1']);
		expect((await control('/config', 'PATCH', { latencyMs: -5 })).status).toBe(400);
		emulator.configure({ rateLimit: { limit: 1000, windowMs: 60_000 } });

		expect((await control('/reset', 'POST')).status).toBe(204);
		expect(emulator.hooks()).toEqual([]);
		expect(emulator.requests).toEqual([]);
	});
});

const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

/** A throwaway self-signed certificate for 127.0.0.1, made with the openssl CLI (node cannot issue certificates). */
function selfSignedCertificate(): { key: string; cert: string } {
	const dir = mkdtempSync(join(tmpdir(), 'emulator-tls-'));
	try {
		execFileSync(
			'openssl',
			[
				'req',
				'-x509',
				'-newkey',
				'ec',
				'-pkeyopt',
				'ec_paramgen_curve:prime256v1',
				'-nodes',
				'-days',
				'1',
				'-subj',
				'/CN=127.0.0.1',
				'-addext',
				'subjectAltName=IP:127.0.0.1',
				'-keyout',
				join(dir, 'key.pem'),
				'-out',
				join(dir, 'cert.pem'),
			],
			{ stdio: 'ignore' },
		);
		return {
			key: readFileSync(join(dir, 'key.pem'), 'utf8'),
			cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
		};
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

describe('https webhooks', () => {
	(hasOpenssl ? it : it.skip)(
		'delivers to a self-signed receiver it trusts, and refuses one it does not (needs the openssl CLI)',
		async () => {
			const tls = selfSignedCertificate();
			const secureReceiver = await startReceiver(tls);
			const [trusting, distrusting] = await Promise.all([
				startEmulator({ deliveryCa: tls.cert }),
				startEmulator(),
			]);
			try {
				for (const instance of [trusting, distrusting]) {
					const answer = await apiClient(instance)('POST', '/me/', {
						...definition({ action: { type: 'http_post', url: secureReceiver.url } }),
						options: { enable_on_registration: true },
					});
					expect(answer.status).toBe(200);
				}
				const block = { height: 50, transactions: [transfer(ALICE)] };
				const [trusted] = await trusting.injectBlock(block);
				const [refused] = await distrusting.injectBlock(block);
				expect(trusted).toMatchObject({ status: 200 });
				expect(refused.status).toBeNull();
				expect(refused.error).toMatch(/self[- ]signed|certificate/i);
				expect(secureReceiver.received).toHaveLength(1);
				expect(checkDelivery(secureReceiver.received[0].body).ok).toBe(true);
			} finally {
				await Promise.all([trusting.close(), distrusting.close(), secureReceiver.close()]);
			}
		},
	);
});
