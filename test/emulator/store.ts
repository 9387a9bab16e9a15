/** Accounts (API key + consumer secret), their hooks, and the blocks the emulator has seen. */
import { randomBytes, randomUUID } from 'node:crypto';

import type { ChainhookDefinition } from '@hirosystems/chainhooks-client/schemas';

import type { Block } from './chain';
import type { HookRecord } from './types';

export interface Account {
	apiKey: string;
	secret: string | null;
	/** Insertion order is creation order. */
	hooks: Map<string, HookRecord>;
}

export function newSecret(): string {
	return randomBytes(32).toString('hex');
}

export class Store {
	readonly accounts = new Map<string, Account>();
	private readonly blocks = new Map<number, Block>();

	constructor(accounts: Array<{ apiKey: string; consumerSecret?: string }>) {
		if (accounts.length === 0) throw new Error('The emulator needs at least one account');
		for (const { apiKey, consumerSecret } of accounts) this.accounts.set(apiKey, { apiKey, secret: consumerSecret ?? newSecret(), hooks: new Map() });
	}

	/** The named account, or the first one when no key is given; throws on an unknown key. */
	accountOrDefault(apiKey?: string): Account {
		const account = apiKey === undefined ? this.accounts.values().next().value : this.accounts.get(apiKey);
		if (!account) throw new Error('Unknown API key');
		return account;
	}

	createHook(account: Account, definition: ChainhookDefinition, now: number): HookRecord {
		const enabled = definition.options?.enable_on_registration === true;
		const hook: HookRecord = {
			uuid: randomUUID(),
			definition,
			status: {
				status: enabled ? 'streaming' : 'new',
				enabled,
				created_at: now,
				last_evaluated_at: null,
				last_evaluated_block_height: null,
				last_occurrence_at: null,
				last_occurrence_block_height: null,
				evaluated_block_count: 0,
				occurrence_count: 0,
			},
		};
		account.hooks.set(hook.uuid, hook);
		return hook;
	}

	putBlock(block: Block): void {
		this.blocks.set(block.block_identifier.index, block);
	}

	/** Forgets the block when it is the one stored at its height (a rollback of it). */
	dropBlock({ block_identifier: { index, hash } }: Block): void {
		if (this.blocks.get(index)?.block_identifier.hash === hash) this.blocks.delete(index);
	}

	findBlock(ref: { block_height?: number; index_block_hash?: string }): Block | undefined {
		if (ref.block_height !== undefined) return this.blocks.get(ref.block_height);
		return [...this.blocks.values()].find((block) => block.block_identifier.hash === ref.index_block_hash);
	}

	/** The highest height the store holds a block of; -1 when it holds none. */
	tipHeight(): number {
		let tip = -1;
		for (const height of this.blocks.keys()) tip = Math.max(tip, height);
		return tip;
	}

	blockHeights(): number[] {
		return [...this.blocks.keys()].sort((a, b) => a - b);
	}

	reset(): void {
		this.blocks.clear();
		for (const account of this.accounts.values()) account.hooks.clear();
	}
}

/** Enabling moves a hook that is not running (new, interrupted) to streaming; disabling keeps the status. */
export function setEnabled(hook: HookRecord, enabled: boolean): void {
	hook.status.enabled = enabled;
	if (enabled && (hook.status.status === 'new' || hook.status.status === 'interrupted')) hook.status.status = 'streaming';
	if (enabled) failuresInARow.delete(hook);
}

/*
 * How a hook stops delivering, as the real service does it:
 * - disabled: `enabled` false (PATCH .../enabled by anyone holding the API key);
 * - interrupted: after `interruptAfterFailures` failed deliveries in a row the status becomes
 *   `interrupted` while `enabled` stays true; a new PATCH .../enabled {enabled: true} resumes it;
 * - expired: its expire_after_* option was reached (status `expired`, `enabled` false);
 * - deleted: DELETE /me/{uuid}, by hand or by any client.
 */
const failuresInARow = new WeakMap<HookRecord, number>();

/** Whether blocks are evaluated and delivered for this hook. */
export function isDelivering(hook: HookRecord): boolean {
	return hook.status.enabled && hook.status.status !== 'interrupted' && hook.status.status !== 'expired';
}

/** Counts a failed delivery; the `limit`-th in a row interrupts the hook. A success starts the count again. */
export function recordDeliveryOutcome(hook: HookRecord, delivered: boolean, limit: number): void {
	const failures = delivered ? 0 : (failuresInARow.get(hook) ?? 0) + 1;
	failuresInARow.set(hook, failures);
	if (failures >= limit && hook.status.status !== 'expired') hook.status.status = 'interrupted';
}

/** The service interrupting a hook at once, as after failed deliveries. */
export function interrupt(hook: HookRecord): void {
	hook.status.status = 'interrupted';
}

function expireIfDue({ definition: { options }, status }: HookRecord): void {
	if (
		(options?.expire_after_evaluations !== undefined && status.evaluated_block_count >= options.expire_after_evaluations) ||
		(options?.expire_after_occurrences !== undefined && status.occurrence_count >= options.expire_after_occurrences)
	) {
		status.status = 'expired';
		status.enabled = false;
	}
}

export function recordEvaluation(hook: HookRecord, height: number, now: number): void {
	Object.assign(hook.status, { evaluated_block_count: hook.status.evaluated_block_count + 1, last_evaluated_at: now, last_evaluated_block_height: height });
	expireIfDue(hook);
}

export function recordOccurrence(hook: HookRecord, height: number, now: number): void {
	Object.assign(hook.status, { occurrence_count: hook.status.occurrence_count + 1, last_occurrence_at: now, last_occurrence_block_height: height });
	expireIfDue(hook);
}
