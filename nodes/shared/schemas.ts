/**
 * Every shape that crosses the wire, in one place: what the nodes send (checked
 * before sending, so a mistake is reported against the parameter, not as a 400)
 * and what the service answers (checked before it reaches a workflow).
 *
 * Written against zod 3 as n8n ships it (3.25.x). The event filters' and the
 * hook options' schemas are derived from their tables (eventFilters.ts,
 * hookOptions.ts), next to the parameters that fill them.
 */
import { z } from 'zod';

import { HOOK_STATUS_NAMES, isHttpsUrl, MAX_BULK_UUIDS, NETWORK_NAMES } from './constants';
import { eventFilterSchema } from './eventFilters';
import { hookOptionsSchema } from './hookOptions';
import { uuidSchema } from './identifiers';

export const webhookUrlSchema = z
	.string()
	.url('must be a URL')
	.refine(isHttpsUrl, 'must use https:// (the service only posts to HTTPS)');

const actionSchema = z.object({ type: z.literal('http_post'), url: webhookUrlSchema }).strict();

export const definitionSchema = z
	.object({
		name: z.string().trim().min(1, 'must not be empty'),
		version: z.literal('1'),
		chain: z.literal('stacks'),
		network: z.enum(NETWORK_NAMES),
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
		statuses: z.array(z.enum(HOOK_STATUS_NAMES)).min(1),
	})
	.partial()
	.strict()
	.refine((filters) => Object.keys(filters).length > 0, 'set at least one filter');

/**
 * A count or height of a hook's status: a number, or null before the hook's first block. A value of any
 * other type is read as absent, so that one odd field does not make the whole hook unreadable.
 */
const statusNumber = z.number().finite().nullable().optional().catch(undefined);

/** A hook's status, as the real service reports it (real-service-notes.md, Status). */
export const hookStatusSchema = z
	.object({
		status: z.string(),
		enabled: z.boolean(),
		created_at: z.number(),
		last_evaluated_at: statusNumber,
		last_evaluated_block_height: statusNumber,
		last_occurrence_at: statusNumber,
		last_occurrence_block_height: statusNumber,
		evaluated_block_count: statusNumber,
		occurrence_count: statusNumber,
	})
	.passthrough();

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
		status: hookStatusSchema,
	})
	.passthrough();

export const hookPageSchema = z.object({
	limit: z.number().int(),
	offset: z.number().int(),
	total: z.number().int().nonnegative(),
	results: z.array(hookSchema),
});

export const bulkResultSchema = z.object({ updated_uuids: z.array(z.string()) }).passthrough();

/** POST /me/secret: the new secret. */
export const secretSchema = z.object({ secret: z.string().min(1) }).passthrough();

/** GET /me/secret: the current secret, null when the account has none (the official ConsumerSecretResponseSchema). */
export const currentSecretSchema = z.object({ secret: z.string().min(1).nullable() }).passthrough();

/** GET on the base address: the service's status (the official ApiStatusResponseSchema). */
export const apiStatusSchema = z.object({ server_version: z.string(), status: z.literal('ready') }).passthrough();
export type ApiStatus = z.infer<typeof apiStatusSchema>;

export const errorBodySchema = z.object({ error: z.string(), details: z.unknown().optional() }).passthrough();

export type Definition = z.infer<typeof definitionSchema>;
export type DefinitionUpdate = z.infer<typeof definitionUpdateSchema>;
export type Hook = z.infer<typeof hookSchema>;
export type HookPage = z.infer<typeof hookPageSchema>;

/** One line a user can act on: "filters.events.0.sender must be a Stacks address …". */
export function describeIssues(error: z.ZodError): string {
	return error.issues
		.map((issue) => (issue.path.length ? `${issue.path.join('.')} ${issue.message}` : issue.message))
		.join('; ');
}
