/**
 * A local emulator of the hooks service: the contract is ../shared/spec/hooks-service-api.md
 * (beside this repository), and request bodies are checked with the real service's published
 * schemas (@hirosystems/chainhooks-client).
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
 *   POST  /_emulator/faults                { count, status?, retryAfter?, body?, match?: { method?, path? }, drop?: 'hang' | 'reset', afterServing? } -> 204
 *   GET   /_emulator/secret?apiKey=K       -> { secret }
 *   GET   /_emulator/deliveries            -> { deliveries }
 *   GET   /_emulator/requests              -> { requests }
 */
export { startEmulator, type Emulator } from './server';
export * from './chain';
export { asTheHookAsks, type NftIdEncoding } from './options';
export { clarityPair } from './clarity';
export { checkBlock, checkDefinition, checkDelivery, type SchemaCheck } from './schemas';
export { API_PREFIXES } from './api';
export { NO_ANSWER } from './delivery';
export { CONTROL_PREFIX, type EmulatorState } from './control';
export type * from './types';
