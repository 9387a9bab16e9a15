/**
 * The hook options of the real service, from one table: shown in full by the
 * action node's Register and Update, and in part by the trigger (which enables
 * its hook itself and must not let it expire while the workflow is active).
 * The parameter, its mapping to the service's names and the options' schema
 * are all derived from it.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

interface HookOption {
	property: INodeProperties;
	/** The option's name at the service. */
	apiName: string;
	/** What the service accepts. */
	schema: z.ZodTypeAny;
	forTrigger: boolean;
}

const flag = (displayName: string, name: string, apiName: string, description: string, forTrigger = true): HookOption => ({
	property: { displayName, name, type: 'boolean', default: false, description },
	apiName,
	schema: z.boolean(),
	forTrigger,
});

const count = (property: INodeProperties, apiName: string): HookOption => ({
	property,
	apiName,
	schema: z.number().int().positive(),
	forTrigger: false,
});

const HOOK_OPTIONS: HookOption[] = [
	flag(
		'Decode Clarity Values',
		'decodeClarityValues',
		'decode_clarity_values',
		"Whether the service adds each Clarity value's text (e.g. (ok true)) and the arguments' names next to the hex. The Stacks Hooks Trigger reads the hex itself, so its items are the same either way.",
	),
	flag('Enable on Registration', 'enableOnRegistration', 'enable_on_registration', 'Whether the hook starts enabled; otherwise it is registered disabled', false),
	count(
		{
			displayName: 'Expire After Evaluations',
			name: 'expireAfterEvaluations',
			type: 'number',
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: 1000,
			description: 'Expire the hook after this many evaluated blocks',
		},
		'expire_after_evaluations',
	),
	count(
		{
			displayName: 'Expire After Occurrences',
			name: 'expireAfterOccurrences',
			type: 'number',
			typeOptions: { minValue: 1, numberPrecision: 0 },
			default: 1,
			description: 'Expire the hook after this many matches',
		},
		'expire_after_occurrences',
	),
	flag('Include Block Metadata', 'includeBlockMetadata', 'include_block_metadata', 'Whether to include block metadata in deliveries'),
	flag('Include Block Signatures', 'includeBlockSignatures', 'include_block_signatures', 'Whether to include signer signatures of each block'),
	flag('Include Contract ABI', 'includeContractAbi', 'include_contract_abi', 'Whether to include the ABI of deployed contracts'),
	flag('Include Contract Source Code', 'includeContractSourceCode', 'include_contract_source_code', 'Whether to include the source code of deployed contracts'),
	flag('Include Post Conditions', 'includePostConditions', 'include_post_conditions', 'Whether to include the post conditions of transactions'),
	flag('Include Raw Transactions', 'includeRawTransactions', 'include_raw_transactions', 'Whether to include each transaction in its raw (hex) form'),
];

/** The Options collection; `extra` adds settings of the node's own (not sent to the service), sorted in by name. */
export function hookOptionsProperty(
	target: 'action' | 'trigger',
	overrides: Partial<INodeProperties> = {},
	extra: INodeProperties[] = [],
): INodeProperties {
	const options = HOOK_OPTIONS.filter((option) => target === 'action' || option.forTrigger).map((option) => option.property);
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...options, ...extra].sort((a, b) => a.displayName.localeCompare(b.displayName)),
		...overrides,
	};
}

/** The chosen options in the service's snake_case; undefined when none is set. */
export function toHookOptions(collection: IDataObject | undefined): IDataObject | undefined {
	const options: IDataObject = {};
	for (const { property, apiName } of HOOK_OPTIONS) {
		const value = collection?.[property.name];
		if (value !== undefined && value !== null && value !== '') options[apiName] = value;
	}
	return Object.keys(options).length ? options : undefined;
}

/** The options as the service takes them: any of them, nothing else. */
export const hookOptionsSchema = z
	.object(Object.fromEntries(HOOK_OPTIONS.map(({ apiName, schema }) => [apiName, schema])))
	.partial()
	.strict();
