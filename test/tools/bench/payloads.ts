/** Deliveries as the service posts them (the emulator's block builder), and the names the parts share. */
import { makeBlock } from '../../emulator';

export const ALICE = 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM';
export const BOB = 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG';
export const API_KEY = 'bench-api-key';
export const SECRET = 'b3e7c0de'.repeat(8);
export const WRONG_SECRET = `${SECRET.slice(0, -1)}0`;

/** What the service posts for a block of `txCount` STX transfers that all match the hook. */
export function delivery(hookUuid: string, hookName: string, height: number, txCount: number) {
	const transactions = Array.from({ length: txCount }, (_, i) => ({ kind: 'stx_transfer' as const, sender: ALICE, recipient: BOB, amount: 1_000_000 + i }));
	return {
		chainhook: { uuid: hookUuid, name: hookName },
		event: { chain: 'stacks', network: 'testnet', apply: [makeBlock({ height, transactions })], rollback: [] },
	};
}
