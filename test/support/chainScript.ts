/**
 * A seeded stream of chain events as the service sees them, for the record suites: blocks on the
 * tip, reorganisations of depth 1 to 3 (each one payload, rollback and apply), forks that become
 * canonical again later (flip-flops), and moments at which the service loses an answer (so it sends
 * a delivery twice). Beside it, the oracle: the canonical chain at the end, and the STX transfers it
 * holds, as the ledger recipe must hold them (`<blockHash>:<txHash>:<operation index>`, written out
 * here on its own: the fee is operation 0, the transfer's debit 1; test/emulator/chain.ts).
 *
 * Randomness comes from fast-check's seeded generator (fc.sample), so a seed replays a script.
 */
import fc from 'fast-check';

import type { BlockInput, TxInput } from '../emulator';

export type Step =
	| { kind: 'apply'; block: BlockInput }
	/** `rollback` tip first, as the service sends it; `apply` ascending. */
	| { kind: 'reorg'; rollback: BlockInput[]; apply: BlockInput[]; flipFlop: boolean }
	/** The service loses its next answer: it sends that delivery again. */
	| { kind: 'loseAnswer' };

export interface LedgerRow {
	eventId: string;
	blockHeight: number;
	blockHash: string;
	txHash: string;
	sender: string;
	recipient: string;
	amount: string;
}

export interface ChainScript {
	steps: Step[];
	/** The canonical chain at the end, ascending. */
	canonical: BlockInput[];
	/** The events of the canonical chain: what the ledger must hold at the end. */
	expectedRows: LedgerRow[];
	/** Every event ever delivered in an apply, and in a rollback: what Notify Once announces and corrects. */
	applied: Set<string>;
	rolledBack: Set<string>;
	counts: { blocks: number; reorgs: number; flipFlops: number; depths: number[]; lostAnswers: number; transfers: number };
}

const SENDERS = ['ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM', 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG', 'ST2JHG361ZXG51QTKY2NQCVBPPRRE2KZB1HR05NNC'];
const hex64 = (tag: number, n: number) => `0x${tag.toString(16).padStart(8, '0')}${n.toString(16).padStart(56, '0')}`;

/** The events of a block, as the oracle sees them: one per STX transfer. */
export function transfersOf(block: BlockInput): LedgerRow[] {
	return block.transactions.flatMap((tx) =>
		tx.kind === 'stx_transfer'
			? [{ eventId: `${block.hash}:${tx.txid}:1`, blockHeight: block.height, blockHash: block.hash!, txHash: tx.txid!, sender: tx.sender, recipient: tx.recipient, amount: String(tx.amount) }]
			: [],
	);
}

/**
 * At least `blocks` heights applied, from `startHeight`; `tag` keeps the hashes of different scripts
 * apart (a suite runs several on one hook).
 */
export function chainScript(seed: number, opts: { blocks: number; startHeight: number; tag: number }): ChainScript {
	const numbers = fc.sample(fc.array(fc.nat({ max: 1_000_000 }), { minLength: opts.blocks * 40, maxLength: opts.blocks * 40 }), { seed, numRuns: 1 })[0];
	let at = 0;
	const next = (n: number) => numbers[at++ % numbers.length] % n;
	const chance = (percent: number) => next(100) < percent;
	let blockCount = 0;
	let txCount = 0;

	const transfer = (): TxInput => ({
		kind: 'stx_transfer',
		sender: SENDERS[next(SENDERS.length)],
		recipient: SENDERS[next(SENDERS.length)],
		amount: 1 + next(5_000_000),
		txid: hex64(opts.tag, ++txCount),
	});
	const noise = (): TxInput => (chance(50) ? { kind: 'coinbase', sender: SENDERS[0], txid: hex64(opts.tag, ++txCount) } : { kind: 'contract_call', sender: SENDERS[1], contractIdentifier: `${SENDERS[2]}.dex`, functionName: 'swap', txid: hex64(opts.tag, ++txCount) });
	/** Four blocks in ten match nothing (no delivery), as most blocks hold none of a hook's events; the others one or two transfers. */
	const content = (): TxInput[] => (chance(40) ? [noise()] : Array.from({ length: 1 + next(2) }, transfer).concat(chance(30) ? [noise()] : []));
	const makeBlock = (height: number, parent: BlockInput | undefined, transactions: TxInput[]): BlockInput => ({
		height,
		hash: hex64(opts.tag, 0x8000_0000 + ++blockCount),
		...(parent ? { parentHash: parent.hash } : {}),
		transactions,
	});

	const chain: BlockInput[] = [];
	const steps: Step[] = [];
	const counts = { blocks: 0, reorgs: 0, flipFlops: 0, depths: [] as number[], lostAnswers: 0, transfers: 0 };
	/** The branch the last reorganisation replaced, and the height it started at, while a flip-flop can bring it back. */
	let abandoned: { from: number; blocks: BlockInput[] } | undefined;

	while (counts.blocks < opts.blocks || steps.length === 0) {
		const tip = chain[chain.length - 1];
		if (chance(4)) {
			steps.push({ kind: 'loseAnswer' });
			counts.lostAnswers++;
		}
		const depth = Math.min(1 + next(3), chain.length);
		if (abandoned && chain.length - (abandoned.from - opts.startHeight) <= 3 && chance(25)) {
			// The fork replaced before becomes canonical again: everything above its start undone, its blocks again.
			const keep = abandoned.from - opts.startHeight;
			const rollback = chain.slice(keep).reverse();
			chain.splice(keep, chain.length - keep, ...abandoned.blocks);
			steps.push({ kind: 'reorg', rollback, apply: abandoned.blocks, flipFlop: true });
			counts.reorgs++;
			counts.flipFlops++;
			counts.depths.push(rollback.length);
			abandoned = undefined;
		} else if (chain.length >= 3 && chance(9)) {
			const keep = chain.length - depth;
			const rollback = chain.slice(keep).reverse();
			// The new branch mines some of the undone transfers again (the same txids), in blocks of its own.
			const apply: BlockInput[] = [];
			const length = depth + (chance(30) ? 1 : 0);
			for (let i = 0; i < length; i++) {
				const undone = rollback[rollback.length - 1 - i]?.transactions.filter((tx) => tx.kind === 'stx_transfer' && chance(60)) ?? [];
				apply.push(makeBlock(opts.startHeight + keep + i, apply[i - 1] ?? chain[keep - 1], [...undone, ...content()]));
			}
			abandoned = { from: opts.startHeight + keep, blocks: chain.slice(keep) };
			chain.splice(keep, chain.length - keep, ...apply);
			steps.push({ kind: 'reorg', rollback, apply, flipFlop: false });
			counts.reorgs++;
			counts.depths.push(depth);
			counts.blocks += length - depth;
		} else {
			const block = makeBlock(opts.startHeight + chain.length, tip, content());
			chain.push(block);
			steps.push({ kind: 'apply', block });
			counts.blocks++;
		}
	}

	const applied = new Set<string>();
	const rolledBack = new Set<string>();
	for (const step of steps) {
		if (step.kind === 'apply') for (const row of transfersOf(step.block)) applied.add(row.eventId);
		if (step.kind === 'reorg') {
			for (const block of step.apply) for (const row of transfersOf(block)) applied.add(row.eventId);
			for (const block of step.rollback) for (const row of transfersOf(block)) rolledBack.add(row.eventId);
		}
	}
	const expectedRows = chain.flatMap(transfersOf);
	counts.transfers = expectedRows.length;
	return { steps, canonical: chain, expectedRows, applied, rolledBack, counts };
}
