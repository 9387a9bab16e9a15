/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 9, a watch list of 10,000 addresses on a mainnet-like stream, against the do-it-yourself way
 * (one broad hook for every transfer, and n8n filtering its items against the list):
 *
 * - 9a the trigger's webhook() per block; 9b what a block costs n8n (items, bytes); 9c requests to the
 *   service (per edit, per hour); 9d edits at the free tier's pace, time compressed: 0 answered 429;
 *   9e the list matched in n8n (the shape a list the service refuses as too large takes) per block.
 */
import { type Block, makeBlock, matchingTransactions, startEmulator, type TxInput } from '../../emulator';
import { watchFilters, DEFAULT_WATCH_KINDS, principalsOf } from '../../../nodes/shared/watchList/kinds';
import { typedInN8nMarker } from '../../../nodes/shared/watchList/listHook';
import { listStateIn } from '../../../nodes/shared/watchList/history';
import { testnetAddress } from '../../support/addresses';
import { runNode } from '../../support/engine/harness';
import { API_KEY, SECRET } from './payloads';
import { fmtBytes, fmtMs, type Row, verdict } from './util';
import { action, check, credentials, credentialTypes, fmtCount, HOOK_UUID, prepare, timePerCall } from './webhookCalls';

const LIST_SIZE = 10_000;
const BLOCK_TX = 300;
/** One transaction in this many touches the list: 3 %. */
const EVERY = 33;

const addressNo = testnetAddress;
export const LIST = Array.from({ length: LIST_SIZE }, (_, i) => addressNo(0x100000 + i));
const OUTSIDERS = Array.from({ length: 50 }, (_, i) => addressNo(0x900000 + i));

/** A mainnet-like block: STX, token and NFT transfers between wallets, one in EVERY to or from a listed address. */
export function streamBlock(height: number): Block {
	const transactions: TxInput[] = Array.from({ length: BLOCK_TX }, (_, i) => {
		const touching = i % EVERY === 0;
		const sender = OUTSIDERS[(i * 7 + height) % OUTSIDERS.length];
		const recipient = touching ? LIST[(i * 131 + height * 17) % LIST_SIZE] : OUTSIDERS[(i * 11 + height + 1) % OUTSIDERS.length];
		if (i % 3 === 1) return { kind: 'ft_transfer', sender, recipient, assetIdentifier: `${OUTSIDERS[0]}.token::t`, amount: 10 + i };
		if (i % 10 === 7) return { kind: 'nft_transfer', sender, recipient, assetIdentifier: `${OUTSIDERS[0]}.nft::n`, value: i };
		return { kind: 'stx_transfer', sender, recipient, amount: 1000 + i };
	});
	return makeBlock({ height, transactions });
}

const wrap = (block: Block, transactions: Block['transactions'], name = 'bench') => ({
	chainhook: { uuid: HOOK_UUID, name },
	event: { chain: 'stacks', network: 'testnet', apply: [{ ...block, transactions }], rollback: [] },
});

const BROAD = [{ type: 'stx_transfer' }, { type: 'ft_transfer' }, { type: 'nft_transfer' }];

async function perBlock(): Promise<Row[]> {
	const block = streamBlock(1000);
	const narrowTxs = matchingTransactions({ filters: { events: watchFilters(LIST, DEFAULT_WATCH_KINDS) as never } }, block);
	const broadTxs = matchingTransactions({ filters: { events: BROAD as never } }, block);
	const ours = await prepare({ body: wrap(block, narrowTxs), parameters: { watch: 'addresses', addresses: LIST.join('\n'), output: 'event' }, items: narrowTxs.length });
	const diy = await prepare({ body: wrap(block, broadTxs), parameters: { events: { filter: BROAD }, output: 'event' }, items: broadTxs.length });
	// The list matched in n8n: the broad hook's delivery, named as such a hook is, cut down by the trigger to the list's.
	const inN8n = await prepare({ body: wrap(block, broadTxs, `bench${typedInN8nMarker(LIST)}`), parameters: { watch: 'addresses', addresses: LIST.join('\n'), output: 'event' }, items: narrowTxs.length });
	// The do-it-yourself filter at its cheapest: a Set of the list, each item's sender and recipient looked up
	// (an n8n Filter node evaluates an expression per item, which costs far more).
	const listed = new Set(LIST);
	const diyCall = async () => {
		const response = await diy.call();
		return (response.workflowData?.[0] ?? []).filter((item) => listed.has(item.json.sender as string) || listed.has(item.json.recipient as string));
	};
	check(await ours.call(), narrowTxs.length, 'watch list webhook()');
	check(await inN8n.call(), narrowTxs.length, 'watch list matched in n8n webhook()');
	const kept = (await diyCall()).length;
	if (kept !== narrowTxs.length) throw new Error(`do-it-yourself: ${kept} items kept, the watch list made ${narrowTxs.length}`);
	const plan = { warmup: 20, batches: 21, perBatch: 5 };
	const oursMs = await timePerCall(ours.call, plan);
	const diyMs = await timePerCall(diyCall, plan);
	const inN8nMs = await timePerCall(inN8n.call, plan);
	return [
		{
			id: '9a', what: `trigger webhook() per block, a ${fmtCount(LIST_SIZE)}-address watch list, ${BLOCK_TX}-tx block, 3 % touching the list`,
			figure: fmtMs(oursMs), reference: `one broad hook + a Set filter ${fmtMs(diyMs)}`, ratio: oursMs / diyMs,
			target: '≤ 1× (at least as fast)', verdict: verdict(oursMs <= diyMs),
			raw:
				`median of ${plan.batches} batches × ${plan.perBatch} calls (after ${plan.warmup}); One Item per Event; ours: the service's delivery of the ` +
				`${narrowTxs.length} transactions the list's ${fmtCount(LIST_SIZE * DEFAULT_WATCH_KINDS.length)} filters select (transfers in and out), named ` +
				`by the list's set lookups; the reference: the delivery of a hook on every STX, token and NFT transfer (${broadTxs.length} transactions), ` +
				`its items, then the cheapest filter n8n could run on them (a Set lookup of sender and recipient, in process)`,
		},
		{
			id: '9b', what: 'what a block costs n8n: items and bytes delivered, watch list vs one broad hook',
			figure: `${narrowTxs.length} items, ${fmtBytes(ours.bytes)}`, reference: `${broadTxs.length} items, ${fmtBytes(diy.bytes)}`, ratio: ours.bytes / diy.bytes,
			target: 'info', verdict: 'info',
			raw:
				`the block of 9a: one transaction in ${EVERY} to a listed address. On a stream where every block holds such a transaction, both get a ` +
				`delivery a block; where a block holds none, the watch list gets none and the broad hook still one`,
		},
		{
			id: '9e', what: 'the list matched in n8n (a hook the service refused one filter per address for): trigger webhook() per block',
			figure: fmtMs(inN8nMs), reference: `one filter per address (9a) ${fmtMs(oursMs)}; one broad hook + a Set filter ${fmtMs(diyMs)}`, ratio: inN8nMs / diyMs,
			target: '≤ 1× the broad hook + Set filter', verdict: verdict(inN8nMs <= diyMs),
			raw:
				`the block of 9a as the broad hook gets it (${broadTxs.length} transactions, ${fmtBytes(diy.bytes)}), the trigger keeping the ${narrowTxs.length} ` +
				`about the list (the same set lookups that name them); the service's filters: ${BROAD.length}, not ${fmtCount(LIST_SIZE * DEFAULT_WATCH_KINDS.length)}`,
		},
	];
}

/** A run of the Stacks Hooks node's Watch List → Add (or Remove) Addresses with one item an address. */
const add = (baseUrl: string, addresses: string[], operation: 'add' | 'remove' = 'add') =>
	runNode({
		nodeType: action,
		credentialTypes,
		credentials: credentials(baseUrl),
		parameters: { resource: 'watchList', operation, listName: 'deposits', address: '={{ $json.address }}' },
		items: addresses.map((address) => ({ address })),
	});

/** The bytes of the bodies of `requests`, as sent. */
const bodyBytes = (requests: ReadonlyArray<{ body?: unknown }>) => requests.reduce((sum, request) => sum + (request.body === undefined ? 0 : Buffer.byteLength(JSON.stringify(request.body))), 0);

async function edits(): Promise<Row[]> {
	// The free tier's 100 requests a minute, and 10 edits a minute, both 6 times faster: 10 a second, 1 edit a second.
	// The watching hook's deliveries go nowhere: the service keeps it streaming, as a trigger's answered deliveries would.
	const emu = await startEmulator({ accounts: [{ apiKey: API_KEY, consumerSecret: SECRET }], rateLimit: { limit: 10, windowMs: 1000 }, interruptAfterFailures: 1_000_000 });
	try {
		// The list, and one trigger's hook watching it (as the trigger registers it).
		const seeded = await add(emu.url, LIST.slice(0, 1000));
		if (seeded.error) throw seeded.error;
		const watcher = await fetch(`${emu.url}/me/`, {
			method: 'POST',
			headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
			body: JSON.stringify({
				name: 'n8n: Deposits (bench) [watch list: deposits | stxReceived | 00000000]', version: '1', chain: 'stacks', network: 'testnet',
				filters: { events: LIST.slice(0, 1000).map((receiver) => ({ type: 'stx_transfer', receiver })) }, action: { type: 'http_post', url: 'https://127.0.0.1:9/webhook/bench' },
			}),
		});
		if (watcher.status !== 200) throw new Error(`seeding the watching hook: ${watcher.status}`);
		// Enabled, as the trigger leaves it, and a block evaluated: each edit then takes effect above a height.
		const { uuid } = (await watcher.json()) as { uuid: string };
		await fetch(`${emu.url}/me/${uuid}/enabled`, { method: 'PATCH', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ enabled: true }) });
		await emu.injectBlock(streamBlock(1999));
		await new Promise((resolve) => setTimeout(resolve, 1100));
		emu.clearRequests();
		const EDITS = 100;
		const started = Date.now();
		let failed = 0;
		for (let i = 0; i < EDITS; i++) {
			const due = started + i * 1000;
			if (Date.now() < due) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
			const run = await add(emu.url, [addressNo(0x200000 + i)]);
			if (run.error) failed++;
		}
		const requests = emu.requests.length;
		const sent = bodyBytes(emu.requests);
		const tooMany = emu.requests.filter((request) => request.status === 429).length;
		const hook = emu.hooks(API_KEY).find((candidate) => candidate.definition.name.includes('[watch list: deposits'))!;
		const { events } = hook.definition.filters;
		const applied = listStateIn(events, [...principalsOf(events)]).addresses.length - 1000;
		const perEdit = requests / EDITS;
		// Edits with a block mined inside each, after the edit listed the hooks again and before it updated the watching
		// hook: the service matches it without the edit. 10 adds, then 10 removals of the same addresses.
		const during = { add: { requests: 0, sent: 0 }, remove: { requests: 0, sent: 0 } };
		const DURING = 10;
		for (const operation of ['add', 'remove'] as const) {
			for (let i = 0; i < DURING; i++) {
				await new Promise((resolve) => setTimeout(resolve, 1000));
				emu.clearRequests();
				emu.mineAt({ skip: 3 }, 'after', streamBlock(2000 + (operation === 'add' ? 0 : DURING) + i));
				const run = await add(emu.url, [addressNo(0x300000 + i)], operation);
				if (run.error) failed++;
				during[operation].requests += emu.requests.length;
				during[operation].sent += bodyBytes(emu.requests);
			}
		}
		const perEditDuring = (operation: 'add' | 'remove') => during[operation].requests / DURING;
		return [
			{
				id: '9c', what: 'requests to the service per edit of the list (one trigger watching it, no block during the edit)',
				figure: `${perEdit.toFixed(1)} a run, ${fmtBytes(sent / EDITS)} sent`, reference: '5 a run before blocks inside an edit were replayed', ratio: perEdit / 5,
				target: '1× (no block: nothing more)', verdict: verdict(perEdit === 5),
				raw:
					`${EDITS} runs of one item each on a list of 1,000 addresses: list the hooks, PATCH the list, read it back, list the hooks again, PATCH the watching hook; ` +
					`a run of any number of items is one edit (the engine tests count the requests of a 50-item run). Bytes sent: the two PATCHes ` +
					`carry the whole list hook and the whole watching hook, so they grow with the list (about 70 bytes an address and kind). Per hour, a watching ` +
					`trigger costs what any trigger does: its health check, one GET every 5 minutes`,
			},
			{
				id: '9c.1', what: 'requests per edit with a block mined inside it (before the watching hook took the edit)',
				figure: `add ${perEditDuring('add').toFixed(1)}, remove ${perEditDuring('remove').toFixed(1)}`, reference: `${perEdit.toFixed(1)} with no block (9c)`, ratio: Number.NaN,
				target: 'add +1 (the block evaluated again), remove +3 (the removal written at the height the hook took it)',
				verdict: verdict(perEditDuring('add') === perEdit + 1 && perEditDuring('remove') === perEdit + 3),
				raw:
					`${DURING} adds, then ${DURING} removals, of one address each, a ${BLOCK_TX}-transaction block mined after the edit's second listing of the hooks; ` +
					`bytes sent per edit: add ${fmtBytes(during.add.sent / DURING)}, remove ${fmtBytes(during.remove.sent / DURING)}`,
			},
			{
				id: '9d', what: `${EDITS} edits at the free tier's pace (10 a minute, 100 requests a minute), time compressed 6×`,
				figure: `${tooMany} × 429`, reference: `${requests} requests`, ratio: Number.NaN,
				target: '0 × 429, every edit applied', verdict: tooMany === 0 && failed === 0 && applied === EDITS ? 'PASS' : 'FAIL',
				raw:
					`one edit a second against a budget of 10 requests a second (the free tier's 100 a minute and 10 edits a minute, 6× faster); ` +
					`${failed} failed runs; the watching hook holds ${applied} of the ${EDITS} added addresses; whole run ${((Date.now() - started) / 1000).toFixed(0)} s`,
			},
		];
	} finally {
		await emu.close();
	}
}

export async function watchListRows(): Promise<Row[]> {
	return [...(await perBlock()), ...(await edits())];
}
