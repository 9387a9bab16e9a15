/**
 * Facts of the service and of this package, each written once. Descriptions,
 * schemas, the credential and the transport derive from them.
 */

export const CREDENTIAL_TYPE = 'stacksHooksApi';

/** The header that carries the account's API key (the contract's authentication). */
export const API_KEY_HEADER = 'x-api-key';

/** The Stacks networks, with the address of the public service (Hiro Chainhooks) of each. */
export const NETWORKS = {
	testnet: { name: 'Testnet', baseUrl: 'https://api.testnet.hiro.so/chainhooks/v1' },
	mainnet: { name: 'Mainnet', baseUrl: 'https://api.mainnet.hiro.so/chainhooks/v1' },
} as const;

export type Network = keyof typeof NETWORKS;

export const NETWORK_NAMES = Object.keys(NETWORKS) as [Network, ...Network[]];

/** The boot address of each network: no one else deploys contracts there. */
export const BOOT_ADDRESSES: Record<Network, string> = { mainnet: 'SP000000000000000000002Q6VF78', testnet: 'ST000000000000000000002AMW42H' };

/** The service refuses a `limit` above this on GET /me/. */
export const MAX_PAGE_SIZE = 60;

/** PATCH /me/enabled takes at most this many UUIDs in `filters.uuids`. */
export const MAX_BULK_UUIDS = 200;

/** Attempts made for one request while the service answers 429 or is briefly unavailable (the contract's back-off). */
export const MAX_ATTEMPTS = 3;

/** A `retry-after` longer than this fails the request at once instead of stalling the workflow. */
export const MAX_RETRY_WAIT_SECONDS = 60;

/** A request with no answer after this long is given up (and, when safe to repeat, tried again). */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Answers that mean the service, or a proxy in front of it, is briefly unavailable: worth another attempt. */
export const TRANSIENT_STATUSES: readonly number[] = [502, 503, 504];

/** A hook's `status.status`, with the label the nodes show for it. */
export const HOOK_STATUSES = {
	new: 'New',
	streaming: 'Streaming',
	expired: 'Expired',
	interrupted: 'Interrupted',
} as const;

export type HookStatus = keyof typeof HOOK_STATUSES;

export const HOOK_STATUS_NAMES = Object.keys(HOOK_STATUSES) as [HookStatus, ...HookStatus[]];

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The service posts deliveries only to HTTPS addresses. */
export function isHttpsUrl(url: string): boolean {
	return url.toLowerCase().startsWith('https://');
}

/** Block heights one Backfill item replays at most: 1,000 evaluations take 10 minutes within a 100-a-minute rate limit. */
export const MAX_BACKFILL_BLOCKS = 1000;
