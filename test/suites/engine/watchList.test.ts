/**
 * A trigger watching a list of addresses, through n8n-core's real hook and webhook contexts against
 * the emulator: the hook it registers, its refusals (bad entries, a list too large for the service)
 * and what its items say about the addresses.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { checkDefinition, type DeliveryPayload, makeBlock, type TxInput } from '../../emulator';
import {
	activateTrigger,
	ALICE,
	API_KEY,
	BOB,
	credentialsFor,
	deliverToTrigger,
	emu,
	runTriggerHook,
	triggerParameters,
	useEmulator,
} from '../../support/engine/fixtures';
import { n8nLogger } from '../../support/engine/harness';
import { testnetAddress } from '../../support/addresses';

useEmulator();

const addressNo = testnetAddress;
const CAROL = addressNo(3);
const VAULT = `${BOB}.vault`;

const transfer = (sender: string, recipient: string, amount: number): TxInput => ({ kind: 'stx_transfer', sender, recipient, amount });
const watching = (addresses: string, overrides: INodeParameters = {}) => triggerParameters({ watch: 'addresses', addresses, ...overrides });
const activate = (parameters: INodeParameters, staticData: IDataObject = {}) => activateTrigger(staticData, { parameters, credentials: credentialsFor(emu) });

function payload(transactions: TxInput[], height = 100): DeliveryPayload {
	return {
		chainhook: { uuid: '9a7c1e52-3f0b-4d8e-a1c2-5b6d7e8f9a0b', name: 'deposits' },
		event: { chain: 'stacks', network: 'testnet', apply: [makeBlock({ height, transactions })], rollback: [] },
	} as DeliveryPayload;
}

async function itemsOf(parameters: INodeParameters, body: DeliveryPayload): Promise<IDataObject[]> {
	const staticData = await activate(parameters);
	const result = await deliverToTrigger(body, staticData, parameters);
	expect(result.status).toBe(200);
	return (result.response.workflowData?.[0] ?? []).map((item) => item.json);
}

describe('the hook of a watch list', () => {
	it('holds one filter per address and kind (kinds in the editor\'s order), each address once, blank lines and # notes left out', async () => {
		await activate(watching(`# deposit addresses\n${ALICE}\n\n  ${VAULT}  \n${ALICE}\n`, { watchFor: ['stxReceived', 'minted'] }));
		const [hook] = emu.hooks(API_KEY);
		expect(hook.definition.filters.events).toEqual([
			{ type: 'stx_mint', receiver: ALICE },
			{ type: 'ft_mint', receiver: ALICE },
			{ type: 'nft_mint', receiver: ALICE },
			{ type: 'stx_transfer', receiver: ALICE },
			{ type: 'stx_mint', receiver: VAULT },
			{ type: 'ft_mint', receiver: VAULT },
			{ type: 'nft_mint', receiver: VAULT },
			{ type: 'stx_transfer', receiver: VAULT },
		]);
		expect(checkDefinition(hook.definition).ok).toBe(true);
	});

	it('watches transfers in and out of STX, tokens and NFTs unless told', async () => {
		await activate(watching(ALICE, { watchFor: undefined }));
		expect(emu.hooks(API_KEY)[0].definition.filters.events).toEqual([
			{ type: 'ft_transfer', receiver: ALICE },
			{ type: 'ft_transfer', sender: ALICE },
			{ type: 'nft_transfer', receiver: ALICE },
			{ type: 'nft_transfer', sender: ALICE },
			{ type: 'stx_transfer', receiver: ALICE },
			{ type: 'stx_transfer', sender: ALICE },
		]);
	});

	it('refuses a list with bad entries, naming each by its line, and registers nothing', async () => {
		const mistyped = `${ALICE.slice(0, -1)}N`;
		const promise = activate(watching(`${ALICE}\n${mistyped}\nSP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7\nhello`));
		await expect(promise).rejects.toThrow('3 entries of the address list are not testnet Stacks principals');
		await expect(promise).rejects.toMatchObject({
			description: expect.stringContaining(
				`line 2: "${mistyped}" is not a Stacks address: its checksum does not match (a character mistyped?); line 3: "SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7" is a mainnet address; this credential is for testnet (ST or SN…); line 4: "hello" is not a Stacks address`,
			),
		});
		expect(emu.requests.filter((request) => request.method === 'POST')).toHaveLength(0);
	});

	it.each([
		['an empty list', watching('\n# nothing yet\n'), 'The address list is empty'],
		['nothing to watch for', watching(ALICE, { watchFor: [] }), 'Watch For is empty'],
	])('refuses %s', async (_, parameters, message) => {
		await expect(activate(parameters)).rejects.toThrow(message);
		expect(emu.hooks(API_KEY)).toHaveLength(0);
	});

	describe('too large for one filter per address and kind', () => {
		const sixty = Array.from({ length: 60 }, (_, i) => addressNo(1000 + i));
		const logger = n8nLogger();
		let warnings: string[];
		beforeEach(() => {
			warnings = [];
			jest.spyOn(logger, 'warn').mockImplementation((message: string) => void warnings.push(message));
		});
		afterEach(() => {
			jest.restoreAllMocks();
			emu.configure({ maxFilters: null, maxRequestBytes: 1024 * 1024 });
		});

		it.each([
			['more filters than the service takes', { maxFilters: 100 }, /\(400\).*must NOT have more than 100 items/],
			['a body larger than the service takes', { maxRequestBytes: 4096 }, /\(413\).*more than 4096 bytes/],
		])('when the service refuses %s, selects the kinds for any address and keeps only the list\'s transactions, saying so', async (_, limit, said) => {
			emu.configure(limit);
			const parameters = watching(sixty.join('\n'), { watchFor: ['stxReceived', 'stxSent', 'ftReceived', 'nftReceived', 'minted'] });
			const staticData = await activate(parameters);
			const [hook] = emu.hooks(API_KEY);
			expect(hook.definition.filters.events).toEqual([{ type: 'ft_transfer' }, { type: 'stx_mint' }, { type: 'ft_mint' }, { type: 'nft_mint' }, { type: 'nft_transfer' }, { type: 'stx_transfer' }]);
			expect(hook.definition.name).toMatch(/ \[addresses \| [0-9a-f]{8} \| matched in n8n\]$/);
			expect(warnings).toEqual([expect.stringMatching(new RegExp(`refused a hook of 420 filters \\(one per address and kind\\) as too large \\(.*${said.source}.*\\); its hook has 6 filters instead \\(ft_transfer, stx_mint, ft_mint, nft_mint, nft_transfer, stx_transfer\\)`))]);
			// The service delivers every STX transfer of the block; the workflow gets the listed addresses' only, rollbacks included.
			const listed = transfer(ALICE, sixty[7], 5);
			const body = { ...payload([transfer(ALICE, CAROL, 1), listed, transfer(CAROL, BOB, 2)]), chainhook: { uuid: hook.uuid, name: hook.definition.name } } as DeliveryPayload;
			body.event.rollback = [makeBlock({ height: 99, transactions: [transfer(BOB, ALICE, 3)] })];
			const result = await deliverToTrigger(body, staticData, parameters);
			const items = (result.response.workflowData?.[0] ?? []).map((item) => item.json);
			expect(items.map(({ direction, sender, watched }) => ({ direction, sender, watched }))).toEqual([{ direction: 'apply', sender: ALICE, watched: [{ address: sixty[7], direction: 'in' }] }]);
			// A delivery with nothing about the list starts nothing.
			const none = await deliverToTrigger({ ...body, event: { ...body.event, apply: [makeBlock({ height: 101, transactions: [transfer(ALICE, CAROL, 1)] })], rollback: [] } }, staticData, parameters);
			expect(none.response.workflowData).toBeUndefined();
			expect(none.status).toBe(200);
		});

		it('stays matched in n8n through a restart, and tries one filter per address again, in place, when the list changes', async () => {
			emu.configure({ maxFilters: 100 });
			const parameters = watching(sixty.join('\n'));
			const staticData = await activate(parameters);
			const [first] = emu.hooks(API_KEY);
			const requests = emu.requests.length;
			expect(await runTriggerHook('checkExists', staticData, { parameters, credentials: credentialsFor(emu) })).toBe(true);
			expect(emu.requests.slice(requests).map((request) => request.method)).toEqual(['GET', 'GET']);
			// Shortened to ten addresses: one filter per address and kind again, the same hook.
			const shorter = watching(sixty.slice(0, 10).join('\n'));
			expect(await runTriggerHook('checkExists', staticData, { parameters: shorter, credentials: credentialsFor(emu) })).toBe(true);
			const [after] = emu.hooks(API_KEY);
			expect(after.uuid).toBe(first.uuid);
			expect(after.definition.filters.events).toHaveLength(60);
			expect(after.definition.name).not.toMatch(/matched in n8n/);
			expect(emu.requests.filter((request) => request.method === 'DELETE')).toEqual([]);
		});

		it('refuses, saying both what was refused and why, when even that is too large (balance changes take one filter per address)', async () => {
			emu.configure({ maxFilters: 50 });
			const promise = activate(watching(sixty.join('\n'), { watchFor: ['balanceChanges', 'stxReceived'] }));
			await expect(promise).rejects.toThrow(/^The service refused a hook of 61 filters \(\d+ KB\) as too large$/);
			await expect(promise).rejects.toMatchObject({
				description: expect.stringMatching(/must NOT have more than 50 items.*The trigger registered nothing\. One filter per address and kind came to 120 filters, refused first; matching the list in n8n still takes one Balance Changes filter per address/),
			});
			expect(emu.hooks(API_KEY)).toHaveLength(0);
		});

		it('says what it sent and why, when the service refuses a list it cannot match in n8n', async () => {
			emu.configure({ maxFilters: 50 });
			const promise = activate(watching(sixty.join('\n'), { watchFor: ['balanceChanges'] }));
			await expect(promise).rejects.toThrow(/^The service refused a hook of 60 filters \(\d+ KB\) as too large$/);
			await expect(promise).rejects.toMatchObject({ description: expect.stringMatching(/The trigger registered nothing: its hook would hold 60 filters for 60 addresses \(1 per address/) });
		});
	});

	it('keeps its hook through a restart when the list is unchanged, and updates it in place when the list changed', async () => {
		const staticData = await activate(watching(`${ALICE}\n${BOB}`));
		const [first] = emu.hooks(API_KEY);
		expect(await runTriggerHook('checkExists', staticData, { parameters: watching(`${ALICE}\n${BOB}`), credentials: credentialsFor(emu) })).toBe(true);
		expect(emu.hooks(API_KEY).map((hook) => hook.uuid)).toEqual([first.uuid]);
		// Published again with a longer list: the same hook, never deleted, so no block is missed in between.
		expect(await runTriggerHook('checkExists', staticData, { parameters: watching(`${ALICE}\n${BOB}\n${CAROL}`), credentials: credentialsFor(emu) })).toBe(true);
		expect(emu.hooks(API_KEY).map((hook) => hook.uuid)).toEqual([first.uuid]);
		expect(emu.hooks(API_KEY)[0].definition.filters.events).toHaveLength(18);
		expect(emu.requests.filter((request) => request.method === 'DELETE')).toEqual([]);
	});
});

describe('the items of a watch list', () => {
	it('name the listed address and the direction of each event', async () => {
		const body = payload([transfer(ALICE, CAROL, 5), transfer(CAROL, VAULT, 7), transfer(ALICE, VAULT, 9)]);
		const items = await itemsOf(watching(`${ALICE}\n${VAULT}`, { output: 'event' }), body);
		expect(items.map(({ sender, recipient, amount, watched }) => ({ sender, recipient, amount, watched }))).toEqual([
			{ sender: ALICE, recipient: CAROL, amount: '5', watched: [{ address: ALICE, direction: 'out' }] },
			{ sender: CAROL, recipient: VAULT, amount: '7', watched: [{ address: VAULT, direction: 'in' }] },
			{
				sender: ALICE,
				recipient: VAULT,
				amount: '9',
				watched: [
					{ address: ALICE, direction: 'out' },
					{ address: VAULT, direction: 'in' },
				],
			},
		]);
	});

	it('leave out the events of a transaction that are not about the list (its fee)', async () => {
		const items = await itemsOf(watching(CAROL, { output: 'event', watchFor: ['stxReceived'] }), payload([transfer(ALICE, CAROL, 5)]));
		expect(items.map((item) => item.eventType)).toEqual(['stx_transfer']);
	});

	it('name them per transaction and per block in those outputs', async () => {
		const body = payload([transfer(ALICE, CAROL, 5), { kind: 'ft_mint', sender: BOB, recipient: CAROL, assetIdentifier: `${BOB}.token::t`, amount: 3 }]);
		const parameters = watching(`${ALICE}\n${CAROL}`, { watchFor: ['stxSent', 'stxReceived', 'minted'] });
		const transactions = await itemsOf(parameters, body);
		expect(transactions.map((item) => item.watched)).toEqual([
			[
				{ address: ALICE, direction: 'out' },
				{ address: CAROL, direction: 'in' },
			],
			[{ address: CAROL, direction: 'in' }],
		]);
		const [block] = await itemsOf({ ...parameters, output: 'block' }, body);
		expect(block.watched).toEqual([
			{ address: ALICE, direction: 'out' },
			{ address: CAROL, direction: 'in' },
		]);
	});
});
