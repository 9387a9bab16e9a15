/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
import type { IncomingHttpHeaders } from 'node:http';

import type { Chainhook, ChainhookEvent, ChainhookNetwork } from '@hirosystems/chainhooks-client/schemas';

export type Network = ChainhookNetwork;
export type HookRecord = Chainhook;
export type DeliveryPayload = ChainhookEvent;
export type SecretHeader = 'x-hook-consumer-secret' | 'x-chainhook-consumer-secret' | 'authorization';
export type Direction = 'apply' | 'rollback';
/** What a delivery carries: one block applied or rolled back, or a reorganisation (both lists). */
export type DeliveryKind = Direction | 'reorg';

export interface RateLimit {
	limit: number;
	windowMs: number;
}

export interface EmulatorOptions {
	/** Default '127.0.0.1'. */
	host?: string;
	/** Default 0: a free port. */
	port?: number;
	/** Default 'testnet'; registering a hook for the other network answers 400. */
	network?: Network;
	/** Default [{ apiKey: 'test-api-key' }]; a missing secret is generated (32 random bytes, hex). */
	accounts?: Array<{ apiKey: string; consumerSecret?: string }>;
	/** Per API key, fixed window. Default { limit: 1000, windowMs: 60000 }; null: no limit and no rate-limit headers. */
	rateLimit?: RateLimit | null;
	/** Value of retry-after on 429; default: seconds until the window resets, at least 1. */
	retryAfterSeconds?: number;
	/** Added before every API answer. Default 0. */
	latencyMs?: number;
	/** Default 1000. */
	maxHooksPerAccount?: number;
	/**
	 * The largest API request body taken; a larger one is answered 413. Default 1 MiB: the default body limit of
	 * fastify, the server the real service's API is built on (its actual limit is not public).
	 */
	maxRequestBytes?: number;
	/** The most event filters one hook's definition may hold (400 past it, as the schema's maxItems words it); default null: no limit (the real service's is not public). */
	maxFilters?: number | null;
	/**
	 * After this many failed deliveries in a row, a hook's status becomes `interrupted` and nothing more is
	 * delivered to it, though `enabled` stays true; enabling it again resumes it. Default 3.
	 */
	interruptAfterFailures?: number;
	/**
	 * Waits before each retry of a failed delivery attempt (a non-2xx answer, a network error, no answer within
	 * `deliveryTimeoutMs`, a lost answer): `[500, 1000]` means up to two retries. The hook's next delivery waits
	 * until this one is settled. Default [] (no retries).
	 */
	retryDelaysMs?: number[];
	/** How long a delivery waits for its answer. Default 10,000 ms. */
	deliveryTimeoutMs?: number;
	/** How deliveries carry the consumer secret. Default 'x-hook-consumer-secret'; 'authorization' sends `Bearer <secret>`. */
	secretHeader?: SecretHeader;
	/** CA or certificate to trust for https deliveries (a self-signed receiver). */
	deliveryCa?: string | Buffer;
	/** Skip certificate verification on https deliveries. */
	deliveryInsecure?: boolean;
	/** How deliveries write an NFT's id: 'repr' (`u42`, as Hiro's filter docs write it; the default) or 'hex' (its binary form). */
	nftIds?: 'repr' | 'hex';
	/** Default false: action.url must be https. Only for local demos. */
	allowHttpWebhooks?: boolean;
}

export type ConfigPatch = Partial<
	Pick<
		EmulatorOptions,
		'rateLimit' | 'retryAfterSeconds' | 'latencyMs' | 'maxHooksPerAccount' | 'maxRequestBytes' | 'maxFilters' | 'secretHeader' | 'interruptAfterFailures' | 'retryDelaysMs' | 'deliveryTimeoutMs' | 'nftIds'
	>
>;

export interface RecordedRequest {
	method: string;
	/** The path as received, prefix included (e.g. '/hooks/v1/me/'). */
	path: string;
	query: Record<string, string>;
	headers: IncomingHttpHeaders;
	/** Parsed JSON; the raw text when it is not JSON; undefined when there was no body. */
	body: unknown;
	/** Status answered; 0 while the answer is pending, and when none was sent (a dropped answer). */
	status: number;
	/** Arrival time, ms since the epoch. */
	at: number;
}

export interface DeliveryReport {
	hookUuid: string;
	url: string;
	/** Status the receiver answered; null when no answer came (network error, timeout, TLS failure). */
	status: number | null;
	/** Set when the delivery failed: a non-2xx status or the network error. */
	error?: string;
	payload: DeliveryPayload;
	/** When the POST finished, ms since the epoch. */
	at: number;
	/** The block's height; for a reorganisation, the new tip's. */
	blockHeight: number;
	direction: DeliveryKind;
	/** 1 for the first POST of the payload, 2 for its first retry, ... */
	attempt: number;
	/** Not POSTed: the hook stopped delivering (interrupted, disabled) while it was queued. */
	dropped?: true;
	/** The receiver answered, but the emulator treated the answer as lost (loseNextAnswers). */
	answerLost?: true;
	/** Dropped without a word (dropNextDeliveries): matched and counted in the hook's status, never POSTed, never retried. */
	silent?: true;
}

/** Which API requests a fault or an armed action is for: by method (any case), and by a part of the path or a pattern of it. */
export type RequestMatch = { method?: string; path?: string | RegExp };

export interface FaultOptions {
	/** Fail only the requests that match (method case-insensitive; path as received, containing the string or matching the RegExp); the others are served and do not use up the count. */
	match?: RequestMatch;
	/** retry-after value; null sends none. Default: for 429 the configured/computed retry-after, else none. */
	retryAfter?: string | null;
	/** Answer body. Default: { error, details: 'Injected fault' }. */
	body?: unknown;
	/** Send no answer at all instead: 'hang' keeps the connection open until the client gives up; 'reset' destroys it. */
	drop?: 'hang' | 'reset';
	/** With drop: serve the request first (what it does, e.g. register a hook, is done), then drop the answer. */
	afterServing?: boolean;
	/** Serve this many matching requests as usual first, then fail the next `count` (default 0): reaches a request deep in a sequence. */
	skip?: number;
}
