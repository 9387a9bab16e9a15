/**
 * Every shape that crosses the wire, in one place: what the nodes send (checked
 * before sending, so a mistake is reported against the parameter, not as a 400)
 * and what the service answers (checked before it reaches a workflow).
 *
 * Written against zod 3 as n8n ships it (3.25.x); the patterns mirror the ones
 * the service publishes in @hirosystems/chainhooks-client's schemas.
 */
import { z } from 'zod';

import { HOOK_STATUSES, MAX_BULK_UUIDS, UUID_PATTERN } from './constants';

const C32 = '[0123456789ABCDEFGHJKMNPQRSTVWXYZ]{28,41}';
const CLARITY_NAME = '[a-zA-Z]([a-zA-Z0-9]|[-_]){0,39}';

const address = z
	.string()
	.regex(new RegExp(`^${C32}$`), 'must be a Stacks address such as SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7');
const contractIdentifier = z
	.string()
	.regex(
		new RegExp(`^${C32}\\.${CLARITY_NAME}$`),
		'must be a contract identifier such as SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.my-contract',
	);
const principal = z.union([address, contractIdentifier], {
	errorMap: () => ({
		message: 'must be a Stacks address (SP…/ST…) or a contract identifier (ADDRESS.contract-name)',
	}),
});
const assetIdentifier = z
	.string()
	.regex(
		new RegExp(`^${C32}\\.${CLARITY_NAME}::${CLARITY_NAME}$`),
		'must be an asset identifier such as SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.my-token::token',
	);

export const uuidSchema = z.string().regex(new RegExp(UUID_PATTERN), 'must be a UUID');

const filter = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
	z.object({ type: z.literal(type), ...shape }).strict();

export const eventFilterSchema = z.discriminatedUnion('type', [
	filter('stx_transfer', { sender: principal.optional(), receiver: principal.optional() }),
	filter('stx_mint', { receiver: principal.optional() }),
	filter('stx_burn', { sender: principal.optional() }),
	filter('stx_event', {}),
	filter('ft_transfer', {
		asset_identifier: assetIdentifier.optional(),
		sender: principal.optional(),
		receiver: principal.optional(),
	}),
	filter('ft_mint', { asset_identifier: assetIdentifier.optional(), receiver: principal.optional() }),
	filter('ft_burn', { asset_identifier: assetIdentifier.optional(), sender: principal.optional() }),
	filter('ft_event', { asset_identifier: assetIdentifier.optional() }),
	filter('nft_transfer', {
		asset_identifier: assetIdentifier.optional(),
		value: z.number().int().optional(),
		sender: principal.optional(),
		receiver: principal.optional(),
	}),
	filter('nft_mint', {
		asset_identifier: assetIdentifier.optional(),
		value: z.number().int().optional(),
		receiver: principal.optional(),
	}),
	filter('nft_burn', {
		asset_identifier: assetIdentifier.optional(),
		value: z.number().int().optional(),
		sender: principal.optional(),
	}),
	filter('nft_event', { asset_identifier: assetIdentifier.optional(), value: z.number().int().optional() }),
	filter('contract_deploy', {
		contract_identifier: contractIdentifier.optional(),
		sender: principal.optional(),
	}),
	filter('contract_call', {
		contract_identifier: contractIdentifier.optional(),
		function_name: z.string().min(1).optional(),
		sender: principal.optional(),
	}),
	filter('contract_log', {
		contract_identifier: contractIdentifier.optional(),
		sender: principal.optional(),
	}),
	filter('coinbase', {}),
	filter('tenure_change', { cause: z.enum(['block_found', 'extended']) }),
	filter('balance_change', { principal }),
]);

export const hookOptionsSchema = z
	.object({
		enable_on_registration: z.boolean(),
		decode_clarity_values: z.boolean(),
		include_contract_abi: z.boolean(),
		include_contract_source_code: z.boolean(),
		include_post_conditions: z.boolean(),
		include_raw_transactions: z.boolean(),
		include_block_signatures: z.boolean(),
		include_block_metadata: z.boolean(),
		expire_after_evaluations: z.number().int().positive(),
		expire_after_occurrences: z.number().int().positive(),
	})
	.partial()
	.strict();

export const webhookUrlSchema = z
	.string()
	.url('must be a URL')
	.refine((url) => url.toLowerCase().startsWith('https://'), 'must use https:// (the service only posts to HTTPS)');

const actionSchema = z.object({ type: z.literal('http_post'), url: webhookUrlSchema }).strict();

export const definitionSchema = z
	.object({
		name: z.string().trim().min(1, 'must not be empty'),
		version: z.literal('1'),
		chain: z.literal('stacks'),
		network: z.enum(['testnet', 'mainnet']),
		// A missing `filters` is reported as the service words it: "filters.events is required".
		filters: z.preprocess(
			(value) => value ?? {},
			z
				.object({
					events: z
						.array(eventFilterSchema, { required_error: 'is required' })
						.min(1, 'needs at least one event filter'),
				})
				.strict(),
		),
		options: hookOptionsSchema.nullable().optional(),
		action: actionSchema,
	})
	.strict();

/** PATCH /me/{uuid}: any part of the definition, at least one. */
export const definitionUpdateSchema = definitionSchema
	.pick({ name: true, filters: true, options: true, action: true })
	.partial()
	.strict()
	.refine((update) => Object.keys(update).length > 0, 'choose at least one field to update');

export const bulkFiltersSchema = z
	.object({
		webhook_url: z.string().url('must be a URL'),
		uuids: z.array(uuidSchema).min(1).max(MAX_BULK_UUIDS, `at most ${MAX_BULK_UUIDS} UUIDs`),
		statuses: z.array(z.enum(HOOK_STATUSES)).min(1),
	})
	.partial()
	.strict()
	.refine((filters) => Object.keys(filters).length > 0, 'set at least one filter');

// What the service answers. Unknown fields pass through: the record holds more
// than the contract shows, and a user should see all of it.
export const hookSchema = z
	.object({
		uuid: z.string().min(1),
		definition: z
			.object({
				name: z.string(),
				network: z.string(),
				filters: z.object({ events: z.array(z.object({ type: z.string() }).passthrough()) }).passthrough(),
				action: z.object({ type: z.string(), url: z.string().optional() }).passthrough(),
			})
			.passthrough(),
		status: z
			.object({ status: z.string(), enabled: z.boolean(), created_at: z.number() })
			.passthrough(),
	})
	.passthrough();

export const hookPageSchema = z.object({
	limit: z.number().int(),
	offset: z.number().int(),
	total: z.number().int().nonnegative(),
	results: z.array(hookSchema),
});

export const bulkResultSchema = z.object({ updated_uuids: z.array(z.string()) }).passthrough();

export const secretSchema = z.object({ secret: z.string().min(1) }).passthrough();

export const errorBodySchema = z.object({ error: z.string(), details: z.unknown().optional() }).passthrough();

// A delivery. Only what the trigger reads is required; the rest passes through
// untouched, so a payload carrying extra options (decoded values, ABIs) works.
const blockIdentifierSchema = z.object({ index: z.number(), hash: z.string() }).passthrough();

export const deliveredBlockSchema = z
	.object({
		block_identifier: blockIdentifierSchema,
		timestamp: z.number().optional(),
		transactions: z.array(z.unknown()),
	})
	.passthrough();

export const deliverySchema = z
	.object({
		chainhook: z.object({ uuid: z.string(), name: z.string().optional() }).passthrough(),
		event: z
			.object({
				chain: z.string().optional(),
				network: z.string(),
				apply: z.array(deliveredBlockSchema).default([]),
				rollback: z.array(deliveredBlockSchema).default([]),
			})
			.passthrough(),
	})
	.passthrough();

export type EventFilter = z.infer<typeof eventFilterSchema>;
export type Definition = z.infer<typeof definitionSchema>;
export type Hook = z.infer<typeof hookSchema>;
export type Delivery = z.infer<typeof deliverySchema>;
export type DeliveredBlock = z.infer<typeof deliveredBlockSchema>;

/** One line a user can act on: "filters.events.0.sender must be a Stacks address …". */
export function describeIssues(error: z.ZodError): string {
	return error.issues
		.map((issue) => (issue.path.length ? `${issue.path.join('.')} ${issue.message}` : issue.message))
		.join('; ');
}
