/**
 * A local emulator of the hooks service (see shared/spec/hooks-service-api.md).
 *
 *   const emulator = await startEmulator({ allowHttpWebhooks: true });
 *   // point a client at emulator.url (…/hooks/v1), x-api-key: 'test-api-key'
 *   await emulator.injectBlock({ height: 1, transactions: [{ kind: 'stx_transfer', sender, recipient, amount: 5 }] });
 *
 * The API is served under /hooks/v1, /chainhooks/v1 and /chainhooks. Test control
 * over HTTP (loopback only, no API key, not recorded, not rate limited):
 *   GET   /_emulator/state                 accounts and their hooks, stored block heights, counts
 *   POST  /_emulator/blocks[?rollback=1]   body BlockInput or Block -> { deliveries }
 *   POST  /_emulator/reset                 -> 204
 *   PATCH /_emulator/config                body ConfigPatch (retryAfterSeconds: null = computed) -> config
 *   POST  /_emulator/faults                { count, status?, retryAfter?, body?, match?: { method?, path? } } -> 204
 *   GET   /_emulator/secret?apiKey=K       -> { secret }
 *   GET   /_emulator/deliveries            -> { deliveries }
 *   GET   /_emulator/requests              -> { requests }
 */
export { startEmulator } from './server';
export {
	blockHash,
	makeBlock,
	matchFilter,
	matchingTransactions,
	toBlock,
	BlockInputSchema,
	TxInputSchema,
	type Block,
	type BlockInput,
	type EventFilter,
	type Operation,
	type Transaction,
	type TxInput,
} from './chain';
export { checkBlock, checkDefinition, checkDelivery, type SchemaCheck } from './schemas';
export { API_PREFIXES } from './api';
export { CONTROL_PREFIX, type EmulatorState } from './control';
export type {
	ConfigPatch,
	DeliveryPayload,
	DeliveryReport,
	Direction,
	Emulator,
	EmulatorOptions,
	FaultOptions,
	HookRecord,
	Network,
	RateLimit,
	RecordedRequest,
	SecretHeader,
} from './types';
