/**
 * Checks against the schemas the real service publishes in @hirosystems/chainhooks-client/schemas,
 * made usable:
 * - formats it relies on (uri, uuid, hex) are registered, since TypeBox fails every string
 *   carrying an unknown format;
 * - the sub-schemas that a circular import leaves empty in ChainhookEventSchema
 *   (operations[].status, execution_cost) are put back from the same package;
 * - request bodies are checked strictly (no unknown fields), which is what the emulator answers 400 for;
 * - errors are reported as `path: message`, following a tagged union into the variant the value
 *   names, so a bad event filter says what is wrong with it.
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

const FORMATS: Record<string, (value: string) => boolean> = {
	uuid: (value) => UUID_RE.test(value),
	hex: (value) => /^(0x)?[0-9a-f]*$/i.test(value),
	uri: (value) => URL.canParse(value) && /^[a-z][a-z0-9+.-]*:/i.test(value),
};
for (const [name, check] of Object.entries(FORMATS)) if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);

export const isUuid = FORMATS.uuid;

type SchemaNode = TSchema & { properties?: Record<string, TSchema>; items?: TSchema; anyOf?: SchemaNode[] };

/** A deep copy of the schema with `visit` applied to every node. */
function transformed<T extends TSchema>(schema: T, visit: (node: SchemaNode) => void): T {
	const walk = (node: SchemaNode): void => {
		visit(node);
		for (const child of [...Object.values(node.properties ?? {}), ...(node.items ? [node.items] : []), ...(node.anyOf ?? [])]) walk(child);
	};
	const copy = CloneType(schema);
	walk(copy);
	return copy;
}

/** A deep copy in which no object accepts properties its schema does not name. */
export function strict<T extends TSchema>(schema: T): T {
	return transformed(schema, (node) => {
		if (node.type === 'object' && node.properties) node.additionalProperties = false;
	});
}

/** The published event schema with its empty sub-schemas put back. */
function repaired<T extends TSchema>(schema: T): T {
	const isEmpty = (sub: TSchema | undefined) => sub === undefined || !(Kind in sub);
	return transformed(schema, ({ properties: props }) => {
		if (props && 'execution_cost' in props && isEmpty(props.execution_cost)) props.execution_cost = CloneType(StacksExecutionCostSchema);
		if (props && 'operation_identifier' in props && isEmpty(props.status)) props.status = CloneType(StacksStatusSchema);
	});
}

const DeliverySchema = repaired(ChainhookEventSchema);
const BlockSchema = repaired(StacksBlockSchema);
const StrictDefinitionSchema = strict(ChainhookDefinitionSchema);

/** A JSON pointer as a readable path: '/filters/events/0/type' -> 'filters.events[0].type'. */
function formatPath(pointer: string): string {
	if (pointer === '') return '(body)';
	return pointer
		.slice(1)
		.split('/')
		.map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
		.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

const literalOf = (schema: TSchema | undefined): unknown => (schema && 'const' in schema ? schema.const : undefined);

function jsonTypes(schema: TSchema): string[] {
	const type = schema.type as string | string[] | undefined;
	if (type === 'integer') return ['number'];
	return Array.isArray(type) ? type : type ? [type] : [];
}

function jsonType(value: unknown): string {
	return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** What a union error says: what a union of literals or patterns allows, else the error of the variant the value was meant to be. */
function describeUnion(error: ValueError): string | undefined {
	const variants = (error.schema as SchemaNode).anyOf ?? [];
	const literals = variants.map(literalOf);
	if (literals.every((literal) => literal !== undefined)) return `${formatPath(error.path)}: must be one of ${literals.join(', ')}`;
	const patterns = variants.map((variant) => variant.pattern as string | undefined);
	if (patterns.every((pattern) => pattern !== undefined)) return `${formatPath(error.path)}: must match one of ${patterns.join(' | ')}`;
	const value = error.value as Record<string, unknown> | null;
	// A tagged union (e.g. by `type`): the variant whose tag the value carries.
	const tag = Object.keys(variants[0]?.properties ?? {}).find((key) => variants.every((variant) => literalOf(variant.properties?.[key]) !== undefined));
	let index: number;
	if (variants.length === 1) index = 0;
	else if (tag && value !== null && typeof value === 'object') {
		index = variants.findIndex((variant) => literalOf(variant.properties?.[tag]) === value[tag]);
		if (index < 0) return `${formatPath(`${error.path}/${tag}`)}: must be one of ${variants.map((v) => literalOf(v.properties?.[tag])).join(', ')}`;
	} else {
		const byType = variants.flatMap((variant, i) => (jsonTypes(variant).includes(jsonType(value)) ? [i] : []));
		if (byType.length !== 1) return undefined;
		index = byType[0];
	}
	const inner = error.errors[index]?.First();
	return inner && describe(inner);
}

function describe(error: ValueError): string {
	const union = error.type === ValueErrorType.Union ? describeUnion(error) : undefined;
	if (union) return union;
	if (error.type === ValueErrorType.ObjectAdditionalProperties) return `${formatPath(error.path)}: unknown field`;
	return `${formatPath(error.path)}: ${error.message}`;
}

export function check(schema: TSchema, value: unknown): SchemaCheck {
	if (Value.Check(schema, value)) return { ok: true, errors: [] };
	return { ok: false, errors: [...new Set([...Value.Errors(schema, value)].map(describe))] };
}

const failed = (...errors: string[]): SchemaCheck => ({ ok: false, errors });

/**
 * Would the service accept this body as a hook definition? The published schema, checked
 * strictly, plus the contract's rules: `filters.events` present (with the exact message the
 * contract gives), at least one event filter, an https webhook (or http too, with `allowHttp`:
 * the emulator's allowHttpWebhooks).
 */
export function checkDefinition(body: unknown, options: { allowHttp?: boolean } = {}): SchemaCheck {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) return failed('(body): must be a JSON object');
	const filters = (body as { filters?: unknown }).filters;
	if (typeof filters !== 'object' || filters === null || !('events' in filters)) return failed('filters.events is required');
	const result = check(StrictDefinitionSchema, body);
	if (!result.ok) return result;
	const definition = body as { filters: { events: unknown[] }; action: { url: string } };
	if (definition.filters.events.length === 0) return failed('filters.events: must contain at least one event filter');
	const allowed = options.allowHttp ? ['https:', 'http:'] : ['https:'];
	if (!allowed.includes(new URL(definition.action.url).protocol)) return failed(`action.url: must use ${options.allowHttp ? 'http or https' : 'https'}`);
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
