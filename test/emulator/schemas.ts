/**
 * Checks against the schemas the real service publishes in
 * @hirosystems/chainhooks-client/schemas, made usable:
 * - formats it relies on (uri, uuid, hex) are registered, since TypeBox fails
 *   every string carrying an unknown format;
 * - the sub-schemas that a circular import leaves empty in ChainhookEventSchema
 *   (operations[].status, execution_cost) are put back from the same package;
 * - request bodies are checked strictly (no unknown fields), which is what the
 *   emulator answers 400 for;
 * - errors are reported as `path: message`, following a tagged union into the
 *   variant the value names, so a bad event filter says what is wrong with it.
 */
import {
	ChainhookDefinitionSchema,
	ChainhookEventSchema,
	StacksBlockSchema,
	StacksExecutionCostSchema,
	StacksStatusSchema,
} from '@hirosystems/chainhooks-client/schemas';
import { CloneType, FormatRegistry, Kind, type TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';

export interface SchemaCheck {
	ok: boolean;
	errors: string[];
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function registerFormats(): void {
	const formats: Record<string, (value: string) => boolean> = {
		uuid: (value) => UUID_RE.test(value),
		hex: (value) => /^(0x)?[0-9a-f]*$/i.test(value),
		uri: (value) => URL.canParse(value) && /^[a-z][a-z0-9+.-]*:/i.test(value),
	};
	for (const [name, check] of Object.entries(formats)) {
		if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
	}
}
registerFormats();

export function isUuid(value: string): boolean {
	return UUID_RE.test(value);
}

type SchemaNode = TSchema & {
	properties?: Record<string, TSchema>;
	items?: TSchema;
	anyOf?: TSchema[];
};

function walk(schema: TSchema, visit: (node: SchemaNode) => void): void {
	const node = schema as SchemaNode;
	visit(node);
	for (const child of Object.values(node.properties ?? {})) walk(child, visit);
	if (node.items) walk(node.items, visit);
	for (const variant of node.anyOf ?? []) walk(variant, visit);
}

/** A deep copy in which no object accepts properties its schema does not name. */
export function strict<T extends TSchema>(schema: T): T {
	const copy = CloneType(schema);
	walk(copy, (node) => {
		if (node.type === 'object' && node.properties) node.additionalProperties = false;
	});
	return copy;
}

function isEmptySchema(schema: TSchema | undefined): boolean {
	return schema === undefined || !(Kind in schema);
}

/** The published event schema with its empty sub-schemas put back. */
function repairEventSchema<T extends TSchema>(schema: T): T {
	const copy = CloneType(schema);
	walk(copy, (node) => {
		const props = node.properties;
		if (!props) return;
		if ('execution_cost' in props && isEmptySchema(props.execution_cost)) {
			props.execution_cost = CloneType(StacksExecutionCostSchema);
		}
		if ('operation_identifier' in props && isEmptySchema(props.status)) {
			props.status = CloneType(StacksStatusSchema);
		}
	});
	return copy;
}

export const DeliverySchema = repairEventSchema(ChainhookEventSchema);
export const BlockSchema = repairEventSchema(StacksBlockSchema);
const StrictDefinitionSchema = strict(ChainhookDefinitionSchema);

function formatPath(pointer: string): string {
	if (pointer === '') return '(body)';
	return pointer
		.slice(1)
		.split('/')
		.map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
		.reduce(
			(path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part),
			'',
		);
}

function literalOf(schema: TSchema | undefined): unknown {
	return schema && 'const' in schema ? schema.const : undefined;
}

/** The key whose literal value tells the variants of a union apart (e.g. `type`). */
function discriminant(variants: SchemaNode[]): string | undefined {
	const first = variants[0]?.properties ?? {};
	return Object.keys(first).find((key) =>
		variants.every((variant) => literalOf(variant.properties?.[key]) !== undefined),
	);
}

function jsonType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'array';
	return typeof value === 'number' ? 'number' : typeof value;
}

function schemaJsonTypes(schema: TSchema): string[] {
	const type = schema.type as string | string[] | undefined;
	if (type === 'integer') return ['number'];
	return Array.isArray(type) ? type : type ? [type] : [];
}

/** The single union variant a value was meant to be, when that can be told. */
function intendedVariant(
	error: ValueError,
): number | { tag: string; allowed: unknown[] } | undefined {
	const variants = (error.schema as SchemaNode).anyOf ?? [];
	if (variants.length === 1) return 0;
	const value = error.value as Record<string, unknown> | null;
	const tag = discriminant(variants as SchemaNode[]);
	if (tag && value !== null && typeof value === 'object') {
		const index = variants.findIndex(
			(v) => literalOf((v as SchemaNode).properties?.[tag]) === value[tag],
		);
		if (index >= 0) return index;
		return { tag, allowed: variants.map((v) => literalOf((v as SchemaNode).properties?.[tag])) };
	}
	const byType = variants
		.map((variant, index) => ({ index, types: schemaJsonTypes(variant) }))
		.filter(({ types }) => types.includes(jsonType(value)));
	return byType.length === 1 ? byType[0].index : undefined;
}

/** For a union of plain literals or patterns, what the value may be; TypeBox only says "Expected union value". */
function unionAlternatives(schema: SchemaNode): string | undefined {
	const variants = (schema.anyOf ?? []) as SchemaNode[];
	const literals = variants.map(literalOf);
	if (literals.every((literal) => literal !== undefined))
		return `must be one of ${literals.join(', ')}`;
	const patterns = variants.map((variant) => variant.pattern as string | undefined);
	if (patterns.every((pattern) => pattern !== undefined))
		return `must match one of ${patterns.join(' | ')}`;
	return undefined;
}

function describe(error: ValueError): string {
	if (error.type === ValueErrorType.Union) {
		const alternatives = unionAlternatives(error.schema as SchemaNode);
		if (alternatives) return `${formatPath(error.path)}: ${alternatives}`;
		const variant = intendedVariant(error);
		if (typeof variant === 'number') {
			const inner = error.errors[variant]?.First();
			if (inner) return describe(inner);
		} else if (variant) {
			const tagPath = formatPath(`${error.path}/${variant.tag}`);
			return `${tagPath}: must be one of ${variant.allowed.join(', ')}`;
		}
	}
	if (error.type === ValueErrorType.ObjectAdditionalProperties) {
		return `${formatPath(error.path)}: unknown field`;
	}
	return `${formatPath(error.path)}: ${error.message}`;
}

export function check(schema: TSchema, value: unknown): SchemaCheck {
	if (Value.Check(schema, value)) return { ok: true, errors: [] };
	const errors = [...new Set([...Value.Errors(schema, value)].map(describe))];
	return { ok: false, errors };
}

function failed(...errors: string[]): SchemaCheck {
	return { ok: false, errors };
}

function hasEvents(body: unknown): boolean {
	const filters = (body as { filters?: unknown } | null)?.filters;
	return typeof filters === 'object' && filters !== null && 'events' in filters;
}

export interface DefinitionCheckOptions {
	/** Accept an http:// webhook (the emulator's allowHttpWebhooks); the contract wants https. */
	allowHttp?: boolean;
}

/**
 * Would the service accept this body as a hook definition? The published schema,
 * checked strictly, plus the contract's rules: `filters.events` present (with the
 * exact message the contract gives), at least one event filter, an https webhook.
 */
export function checkDefinition(body: unknown, options: DefinitionCheckOptions = {}): SchemaCheck {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		return failed('(body): must be a JSON object');
	}
	if (!hasEvents(body)) return failed('filters.events is required');
	const result = check(StrictDefinitionSchema, body);
	if (!result.ok) return result;
	const definition = body as { filters: { events: unknown[] }; action: { url: string } };
	if (definition.filters.events.length === 0) {
		return failed('filters.events: must contain at least one event filter');
	}
	const protocol = new URL(definition.action.url).protocol;
	const allowed = options.allowHttp ? ['https:', 'http:'] : ['https:'];
	if (!allowed.includes(protocol)) {
		return failed(`action.url: must use ${options.allowHttp ? 'http or https' : 'https'}`);
	}
	return { ok: true, errors: [] };
}

/** Is this what the service POSTs to a webhook (ChainhookEventSchema, repaired)? */
export function checkDelivery(payload: unknown): SchemaCheck {
	return check(DeliverySchema, payload);
}

/** Is this one Stacks block as the service delivers it (StacksBlockSchema, repaired)? */
export function checkBlock(block: unknown): SchemaCheck {
	return check(BlockSchema, block);
}
