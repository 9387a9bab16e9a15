/**
 * Request checks. The service's own published schemas are used wherever it
 * publishes one (checked strictly); the rest follows the contract.
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
import { check, checkBlock, checkDefinition, isUuid, strict } from './schemas';
import type { ConfigPatch, Network } from './types';

export const MAX_PAGE_SIZE = 60;
export const DEFAULT_PAGE_SIZE = 20;

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requireObject(body: unknown): Record<string, unknown> {
	if (body === undefined) throw badRequest('Request body is required');
	if (!isObject(body)) throw badRequest('(body): must be a JSON object');
	return body;
}

function parse<S extends TSchema>(schema: S, body: unknown): Static<S> {
	requireObject(body);
	const result = check(schema, body);
	if (!result.ok) throw badRequest(result.errors.join('; '));
	return body as Static<S>;
}

export interface DefinitionRules {
	network: Network;
	allowHttpWebhooks: boolean;
}

export function parseDefinition(body: unknown, rules: DefinitionRules): ChainhookDefinition {
	requireObject(body);
	const result = checkDefinition(body, { allowHttp: rules.allowHttpWebhooks });
	if (!result.ok) throw badRequest(result.errors.join('; '));
	const definition = body as ChainhookDefinition;
	if (definition.network !== rules.network) {
		throw badRequest(`network: this service serves ${rules.network}, not ${definition.network}`);
	}
	return definition;
}

const FIXED_FIELDS = ['chain', 'network', 'version'] as const;

/** A partial definition merged over the current one; chain, network and version may only be repeated. */
export function parseUpdate(
	current: ChainhookDefinition,
	body: unknown,
	rules: DefinitionRules,
): ChainhookDefinition {
	const patch = requireObject(body);
	for (const field of FIXED_FIELDS) {
		if (field in patch && patch[field] !== current[field])
			throw badRequest(`${field}: cannot be changed`);
	}
	return parseDefinition({ ...current, ...patch }, rules);
}

function parseInteger(
	raw: string | null,
	name: string,
	fallback: number,
	min: number,
	max: number,
): number {
	if (raw === null) return fallback;
	const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
	if (!Number.isSafeInteger(value) || value < min || value > max) {
		const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
		throw badRequest(`${name}: must be an integer ${range}`);
	}
	return value;
}

export function parsePage(query: URLSearchParams): { limit: number; offset: number } {
	return {
		limit: parseInteger(query.get('limit'), 'limit', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
		offset: parseInteger(query.get('offset'), 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
	};
}

export function parseUuid(raw: string): string {
	let uuid: string;
	try {
		uuid = decodeURIComponent(raw);
	} catch {
		throw badRequest('uuid: must be a UUID');
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
	const filters = requireObject(body).filters;
	if (!isObject(filters) || Object.keys(filters).length === 0) {
		throw badRequest('filters: give at least one of webhook_url, uuids, statuses');
	}
	const request = parse(BulkSchema, body);
	return { enabled: request.enabled, filters: filters as BulkFilters };
}

export function parseEvaluate(body: unknown): { block_height?: number; index_block_hash?: string } {
	const request = parse(EvaluateSchema, body);
	if (request.block_height !== undefined && request.index_block_hash !== undefined) {
		throw badRequest('give either block_height or index_block_hash, not both');
	}
	return request;
}

// ---------------------------------------------------------------------------
// Control endpoints

const StrictBlockInput = strict(BlockInputSchema);

export function parseBlock(body: unknown): BlockInput | Block {
	const value = requireObject(body);
	if (isBlock(value as BlockInput | Block)) {
		const result = checkBlock(value);
		if (!result.ok) throw badRequest(result.errors.join('; '));
		return value as Block;
	}
	return parse(StrictBlockInput, value);
}

const ConfigPatchSchema = strict(
	Type.Object({
		rateLimit: Type.Optional(
			Type.Union([
				Type.Object({
					limit: Type.Integer({ minimum: 0 }),
					windowMs: Type.Integer({ minimum: 1 }),
				}),
				Type.Null(),
			]),
		),
		retryAfterSeconds: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
		latencyMs: Type.Optional(Type.Integer({ minimum: 0 })),
		maxHooksPerAccount: Type.Optional(Type.Integer({ minimum: 0 })),
		secretHeader: Type.Optional(
			Type.Union([
				Type.Literal('x-hook-consumer-secret'),
				Type.Literal('x-chainhook-consumer-secret'),
				Type.Literal('authorization'),
			]),
		),
	}),
);

/** JSON has no undefined: `retryAfterSeconds: null` restores the computed retry-after. */
export function parseConfigPatch(body: unknown): ConfigPatch {
	const { retryAfterSeconds, ...rest } = parse(ConfigPatchSchema, body);
	if (retryAfterSeconds === undefined) return rest;
	return { ...rest, retryAfterSeconds: retryAfterSeconds ?? undefined };
}

const FaultSchema = strict(
	Type.Object({
		count: Type.Integer({ minimum: 0 }),
		status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
		retryAfter: Type.Optional(Type.Union([Type.String(), Type.Null()])),
		body: Type.Optional(Type.Unknown()),
		match: Type.Optional(
			Type.Object({ method: Type.Optional(Type.String()), path: Type.Optional(Type.String()) }),
		),
	}),
);

export function parseFault(body: unknown): Static<typeof FaultSchema> {
	return parse(FaultSchema, body);
}
