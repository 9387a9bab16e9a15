export const CREDENTIAL_TYPE = 'stacksHooksApi';

export type Network = 'testnet' | 'mainnet';

/** The public service of each network (Hiro Chainhooks), used when the credential's base URL is empty. */
export const NETWORK_BASE_URLS: Record<Network, string> = {
	testnet: 'https://api.testnet.hiro.so/chainhooks/v1',
	mainnet: 'https://api.mainnet.hiro.so/chainhooks/v1',
};

/** The service refuses a `limit` above this on GET /me/. */
export const MAX_PAGE_SIZE = 60;

/** PATCH /me/enabled takes at most this many UUIDs in `filters.uuids`. */
export const MAX_BULK_UUIDS = 200;

/** Attempts made for one request while the service answers 429 (the contract's back-off). */
export const MAX_ATTEMPTS = 3;

/** A `retry-after` longer than this fails the request at once instead of stalling the workflow. */
export const MAX_RETRY_WAIT_SECONDS = 60;

export const HOOK_STATUSES = ['new', 'streaming', 'expired', 'interrupted'] as const;

export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
