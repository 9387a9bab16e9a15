/**
 * Request checks. The service's own published schemas are used wherever it publishes one
 * (checked strictly); the rest follows the contract.
 */
import {
	BulkEnableChainhooksRequestSchema,
	EnableChainhookRequestSchema,
	EvaluateChainhookRequestSchema,
	type BulkEnableChainhooksRequest,
	type ChainhookDefinition,
} from '@hirosystems/chainhooks-client/schemas';
import { Type, type Static, type TSchema } from '@sinclair/typebox';

import { BlockInputSchema, isBlock, type Block, type BlockInput } from './chain';
import { badRequest } from './http';
import { check, checkBlock, checkDefinition, isUuid, strict, type SchemaCheck } from './schemas';
import type { ConfigPatch, Network } from './types';

export const MAX_PAGE_SIZE = 60;
export const DEFAULT_PAGE_SIZE = 20;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function requireObject(body: unknown): Record<string, unknown> {
	if (body === undefined) throw badRequest('Request body is required');
	if (!isObject(body)) throw badRequest('(body): must be a JSON object');
	return body;
}

function accept(result: SchemaCheck): void {
	if (!result.ok) throw badRequest(result.errors.join('; '));
}

function parse<S extends TSchema>(schema: S, body: unknown): Static<S> {
	accept(check(schema, requireObject(body)));
	return body as Static<S>;
}

export interface DefinitionRules {
	network: Network;
	allowHttpWebhooks: boolean;
	/** The most event filters a definition may hold; null: no limit. */
	maxFilters: number | null;
}

export function parseDefinition(body: unknown, rules: DefinitionRules): ChainhookDefinition {
	accept(checkDefinition(requireObject(body), { allowHttp: rules.allowHttpWebhooks }));
	const definition = body as ChainhookDefinition;
	if (definition.network !== rules.network) throw badRequest(`network: this service serves ${rules.network}, not ${definition.network}`);
	if (rules.maxFilters !== null && definition.filters.events.length > rules.maxFilters) {
		throw badRequest(`filters.events: must NOT have more than ${rules.maxFilters} items`);
	}
	return definition;
}

/** A partial definition merged over the current one; chain, network and version may only be repeated. */
export function parseUpdate(current: ChainhookDefinition, body: unknown, rules: DefinitionRules): ChainhookDefinition {
	const patch = requireObject(body);
	for (const field of ['chain', 'network', 'version'] as const) {
		if (field in patch && patch[field] !== current[field]) throw badRequest(`${field}: cannot be changed`);
	}
	return parseDefinition({ ...current, ...patch }, rules);
}

function parseInteger(raw: string | null, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
	if (raw === null) return fallback;
	const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
	if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
	throw badRequest(`${name}: must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`}`);
}

export function parsePage(query: URLSearchParams): { limit: number; offset: number } {
	return {
		limit: parseInteger(query.get('limit'), 'limit', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
		offset: parseInteger(query.get('offset'), 'offset', 0, 0),
	};
}

export function parseUuid(raw: string): string {
	let uuid = '';
	try {
		uuid = decodeURIComponent(raw);
	} catch {
		// not a UUID either
	}
	if (!isUuid(uuid)) throw badRequest('uuid: must be a UUID');
	return uuid.toLowerCase();
}

const EnableSchema = strict(EnableChainhookRequestSchema);
const BulkSchema = strict(BulkEnableChainhooksRequestSchema);
const EvaluateSchema = strict(EvaluateChainhookRequestSchema);

export function parseEnabled(body: unknown): boolean {
	return parse(EnableSchema, body).enabled;
}

export type BulkFilters = NonNullable<BulkEnableChainhooksRequest['filters']>;

export function parseBulk(body: unknown): { enabled: boolean; filters: BulkFilters } {
	const { filters } = requireObject(body);
	if (!isObject(filters) || Object.keys(filters).length === 0) throw badRequest('filters: give at least one of webhook_url, uuids, statuses');
	return { enabled: parse(BulkSchema, body).enabled, filters: filters as BulkFilters };
}

export function parseEvaluate(body: unknown): { block_height?: number; index_block_hash?: string } {
	const request = parse(EvaluateSchema, body);
	if (request.block_height !== undefined && request.index_block_hash !== undefined) throw badRequest('give either block_height or index_block_hash, not both');
	return request;
}

// ---------------------------------------------------------------------------
// Control endpoints

const StrictBlockInput = strict(BlockInputSchema);

export function parseBlock(body: unknown): BlockInput | Block {
	const value = requireObject(body) as BlockInput | Block;
	if (!isBlock(value)) return parse(StrictBlockInput, value);
	accept(checkBlock(value));
	return value;
}

const ConfigPatchSchema = strict(
	Type.Object({
		rateLimit: Type.Optional(Type.Union([Type.Object({ limit: Type.Integer({ minimum: 0 }), windowMs: Type.Integer({ minimum: 1 }) }), Type.Null()])),
		retryAfterSeconds: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
		latencyMs: Type.Optional(Type.Integer({ minimum: 0 })),
		maxHooksPerAccount: Type.Optional(Type.Integer({ minimum: 0 })),
		maxRequestBytes: Type.Optional(Type.Integer({ minimum: 1 })),
		maxFilters: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
		secretHeader: Type.Optional(
			Type.Union([Type.Literal('x-hook-consumer-secret'), Type.Literal('x-chainhook-consumer-secret'), Type.Literal('authorization')]),
		),
		interruptAfterFailures: Type.Optional(Type.Integer({ minimum: 1 })),
		retryDelaysMs: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 20 })),
		deliveryTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
		nftIds: Type.Optional(Type.Union([Type.Literal('repr'), Type.Literal('hex')])),
	}),
);

/** JSON has no undefined: `retryAfterSeconds: null` restores the computed retry-after. */
export function parseConfigPatch(body: unknown): ConfigPatch {
	const { retryAfterSeconds, ...rest } = parse(ConfigPatchSchema, body);
	return retryAfterSeconds === undefined ? rest : { ...rest, retryAfterSeconds: retryAfterSeconds ?? undefined };
}

const FaultSchema = strict(
	Type.Object({
		count: Type.Integer({ minimum: 0 }),
		status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
		retryAfter: Type.Optional(Type.Union([Type.String(), Type.Null()])),
		body: Type.Optional(Type.Unknown()),
		match: Type.Optional(Type.Object({ method: Type.Optional(Type.String()), path: Type.Optional(Type.String()) })),
		drop: Type.Optional(Type.Union([Type.Literal('hang'), Type.Literal('reset')])),
		afterServing: Type.Optional(Type.Boolean()),
		skip: Type.Optional(Type.Integer({ minimum: 0 })),
	}),
);

export function parseFault(body: unknown): Static<typeof FaultSchema> {
	return parse(FaultSchema, body);
}

/** POST /_emulator/reorg: `{rollback: [block, ...], apply: [block, ...]}`, each a block input or a whole block. */
export function parseReorg(body: unknown): { rollback: Array<BlockInput | Block>; apply: Array<BlockInput | Block> } {
	const value = requireObject(body) as { rollback?: unknown; apply?: unknown };
	const list = (key: 'rollback' | 'apply') => {
		const blocks = value[key] ?? [];
		if (!Array.isArray(blocks)) throw badRequest(`${key} must be a list of blocks`);
		return blocks.map((block) => parseBlock(block));
	};
	const extra = Object.keys(value).filter((key) => key !== 'rollback' && key !== 'apply');
	if (extra.length > 0) throw badRequest(`Unknown field(s): ${extra.join(', ')}`);
	return { rollback: list('rollback'), apply: list('apply') };
}

const DeliveryFaultsSchema = strict(
	Type.Object({
		loseAnswers: Type.Optional(Type.Integer({ minimum: 0 })),
		dropDeliveries: Type.Optional(Type.Integer({ minimum: 0 })),
		appliesOnly: Type.Optional(Type.Boolean()),
		hookUuid: Type.Optional(Type.String()),
	}),
);

/** POST /_emulator/faults/deliveries: `{loseAnswers?: n, dropDeliveries?: n, hookUuid?}`. */
export function parseDeliveryFaults(body: unknown): Static<typeof DeliveryFaultsSchema> {
	return parse(DeliveryFaultsSchema, body);
}
