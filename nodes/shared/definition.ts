/**
 * Building what the nodes register or update, and refusing it with a message
 * naming the parameter before any request when it would not be accepted.
 */
import type { IDataObject, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { z } from 'zod';

import type { EventFilter } from './chainEvents';
import type { Network } from './constants';
import { toHookOptions } from './hookOptions';
import { type Definition, definitionSchema, describeIssues } from './schemas';

export interface DefinitionParameters {
	name: string;
	webhookUrl: string;
	network: Network;
	/** The service's filter objects (eventFilters.ts builds them from the `events` parameter); checked here. */
	filters: readonly IDataObject[] | readonly EventFilter[];
	options?: IDataObject;
}

/** Parses `value` with `schema`, or throws an error saying which fields are wrong and how. */
export function validate<T>(
	node: INode,
	schema: z.ZodType<T, z.ZodTypeDef, unknown>,
	value: unknown,
	what: string,
	itemIndex?: number,
): T {
	const parsed = schema.safeParse(value);
	if (parsed.success) return parsed.data;
	throw new NodeOperationError(node, `Invalid ${what}: ${describeIssues(parsed.error)}`, { itemIndex });
}

export function buildDefinition(node: INode, params: DefinitionParameters, itemIndex?: number): Definition {
	const options = toHookOptions(params.options);
	return validate(
		node,
		definitionSchema,
		{
			name: params.name,
			version: '1',
			chain: 'stacks',
			network: params.network,
			filters: { events: params.filters },
			...(options ? { options } : {}),
			action: { type: 'http_post', url: params.webhookUrl },
		},
		'hook definition',
		itemIndex,
	);
}
