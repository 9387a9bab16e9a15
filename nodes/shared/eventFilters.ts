/**
 * The event filters of a hook, from one table: the fields each event type
 * takes, how each field is shown (the action node's Register and Update and
 * the trigger show the same), what the service calls it, and what it accepts.
 * The `events` parameter, its mapping to the service's filter objects and the
 * filters' schema are all derived from it.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { z } from 'zod';

import {
	assetIdentifierSchema,
	contractIdentifierSchema,
	principalSchema,
} from './identifiers';

interface FilterField {
	property: INodeProperties;
	/** The field's name at the service. */
	apiName: string;
	/** What the service accepts (optional unless `property.required`). */
	schema: z.ZodTypeAny;
	/** From the parameter's value to the service's; default: as is. */
	toApi?: (value: IDataObject[string]) => IDataObject[string];
}

const ADDRESS_HINT = 'A Stacks address (SP… on mainnet, ST… on testnet) or a contract identifier (ADDRESS.contract-name)';

const TENURE_CAUSES = [
	{ name: 'Block Found', value: 'block_found' },
	{ name: 'Extended', value: 'extended' },
] as const;

const FILTER_FIELDS = {
	sender: {
		property: {
			displayName: 'Sender',
			name: 'sender',
			type: 'string',
			default: '',
			placeholder: 'e.g. ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM',
			description: `Only events sent by this principal. ${ADDRESS_HINT}. Leave empty for any sender.`,
		},
		apiName: 'sender',
		schema: principalSchema,
	},
	receiver: {
		property: {
			displayName: 'Receiver',
			name: 'receiver',
			type: 'string',
			default: '',
			placeholder: 'e.g. ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG',
			description: `Only events received by this principal. ${ADDRESS_HINT}. Leave empty for any receiver.`,
		},
		apiName: 'receiver',
		schema: principalSchema,
	},
	assetIdentifier: {
		property: {
			displayName: 'Asset Identifier',
			name: 'assetIdentifier',
			type: 'string',
			default: '',
			placeholder: 'e.g. SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.my-token::token',
			description: 'Only this token: ADDRESS.contract-name::asset-name. Leave empty for any asset.',
		},
		apiName: 'asset_identifier',
		schema: assetIdentifierSchema,
	},
	contractIdentifier: {
		property: {
			displayName: 'Contract Identifier',
			name: 'contractIdentifier',
			type: 'string',
			default: '',
			placeholder: 'e.g. SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.my-contract',
			description: 'Only this contract: ADDRESS.contract-name. Leave empty for any contract.',
		},
		apiName: 'contract_identifier',
		schema: contractIdentifierSchema,
	},
	functionName: {
		property: {
			displayName: 'Function Name',
			name: 'functionName',
			type: 'string',
			default: '',
			placeholder: 'e.g. transfer',
			description: 'Only calls of this public function. Leave empty for any function.',
		},
		apiName: 'function_name',
		schema: z.string().min(1),
	},
	value: {
		property: {
			displayName: 'Token ID',
			name: 'value',
			type: 'string',
			default: '',
			placeholder: 'e.g. 42',
			description: 'Only the NFT with this integer ID. Leave empty for any token.',
		},
		apiName: 'value',
		schema: z.number().int(),
		// Typed as text (IDs can exceed what a number field shows); sent as the integer the service takes.
		toApi: (value) => (/^-?\d+$/.test(String(value)) ? Number(value) : value),
	},
	cause: {
		property: {
			displayName: 'Cause',
			name: 'cause',
			type: 'options',
			options: [...TENURE_CAUSES],
			default: 'block_found',
			required: true,
			description: 'Which tenure changes to match',
		},
		apiName: 'cause',
		schema: z.enum([TENURE_CAUSES[0].value, TENURE_CAUSES[1].value]),
	},
	principal: {
		property: {
			displayName: 'Principal',
			name: 'principal',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM',
			description: `The principal whose balance changes are matched. ${ADDRESS_HINT}.`,
		},
		apiName: 'principal',
		schema: principalSchema,
	},
} satisfies Record<string, FilterField>;

type FilterFieldName = keyof typeof FILTER_FIELDS;

interface EventType {
	name: string;
	value: string;
	description: string;
	fields: FilterFieldName[];
}

/** Every event type of the real service, stx_transfer first. */
export const EVENT_TYPES: EventType[] = [
	{ name: 'STX Transfer', value: 'stx_transfer', description: 'STX sent from one principal to another', fields: ['sender', 'receiver'] },
	{ name: 'STX Mint', value: 'stx_mint', description: 'STX minted', fields: ['receiver'] },
	{ name: 'STX Burn', value: 'stx_burn', description: 'STX burned', fields: ['sender'] },
	{ name: 'STX Event (Any)', value: 'stx_event', description: 'Any STX transfer, mint, burn or lock', fields: [] },
	{ name: 'FT Transfer', value: 'ft_transfer', description: 'A fungible token (SIP-010) transfer', fields: ['assetIdentifier', 'sender', 'receiver'] },
	{ name: 'FT Mint', value: 'ft_mint', description: 'A fungible token mint', fields: ['assetIdentifier', 'receiver'] },
	{ name: 'FT Burn', value: 'ft_burn', description: 'A fungible token burn', fields: ['assetIdentifier', 'sender'] },
	{ name: 'FT Event (Any)', value: 'ft_event', description: 'Any fungible token event', fields: ['assetIdentifier'] },
	{ name: 'NFT Transfer', value: 'nft_transfer', description: 'A non-fungible token (SIP-009) transfer', fields: ['assetIdentifier', 'value', 'sender', 'receiver'] },
	{ name: 'NFT Mint', value: 'nft_mint', description: 'A non-fungible token mint', fields: ['assetIdentifier', 'value', 'receiver'] },
	{ name: 'NFT Burn', value: 'nft_burn', description: 'A non-fungible token burn', fields: ['assetIdentifier', 'value', 'sender'] },
	{ name: 'NFT Event (Any)', value: 'nft_event', description: 'Any non-fungible token event', fields: ['assetIdentifier', 'value'] },
	{ name: 'Contract Deploy', value: 'contract_deploy', description: 'A smart contract deployed', fields: ['contractIdentifier', 'sender'] },
	{ name: 'Contract Call', value: 'contract_call', description: 'A public function of a contract called', fields: ['contractIdentifier', 'functionName', 'sender'] },
	{ name: 'Contract Log', value: 'contract_log', description: 'A contract printed an event (print)', fields: ['contractIdentifier', 'sender'] },
	{ name: 'Coinbase', value: 'coinbase', description: 'A coinbase (block reward) transaction', fields: [] },
	{ name: 'Tenure Change', value: 'tenure_change', description: 'A miner tenure change', fields: ['cause'] },
	{ name: 'Balance Change', value: 'balance_change', description: 'Any change to the balance of a principal', fields: ['principal'] },
];

const FIELD_NAMES = Object.keys(FILTER_FIELDS) as FilterFieldName[];

const typesWith = (field: FilterFieldName) =>
	EVENT_TYPES.filter((type) => type.fields.includes(field)).map((type) => type.value);

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

/**
 * The `events` parameter: several filters, OR-ed by the service. Event types are listed
 * alphabetically, as n8n lists options. Type stays first in each filter and the fields it shows
 * follow alphabetically: n8n's guideline puts a field before the fields that depend on it.
 */
function eventFiltersProperty(displayName: string, description?: string): INodeProperties {
	return {
		displayName,
		name: 'events',
		type: 'fixedCollection',
		placeholder: 'Add Event Filter',
		required: true,
		typeOptions: { multipleValues: true },
		default: { filter: [{ type: 'stx_transfer' }] },
		...(description !== undefined && { description }),
		options: [
			{
				displayName: 'Filter',
				name: 'filter',
				values: [
					{
						displayName: 'Type',
						name: 'type',
						type: 'options',
						options: EVENT_TYPES.map(({ name, value, description }) => ({ name, value, description })).sort(byName),
						default: 'stx_transfer',
						description: 'The kind of chain event',
					},
					...FIELD_NAMES.map((field) => ({
						...FILTER_FIELDS[field].property,
						displayOptions: { show: { type: typesWith(field) } },
					})).sort((a, b) => a.displayName.localeCompare(b.displayName)),
				],
			},
		],
	};
}

/** The action node's event filters (Register, Update). */
export const eventsProperty = eventFiltersProperty(
	'Events',
	'The chain events to match. A hook fires when any one of these filters matches.',
);

/**
 * The trigger's: the same filters, named as n8n's guideline names the event setting of a trigger
 * ("Trigger On", without a tooltip). Its `name` stays `events`: saved workflows hold their filters under it.
 */
export const triggerOnProperty = eventFiltersProperty('Trigger On');

/** One filter as the service takes it: its type, and only the fields that type has. */
export const eventFilterSchema = z.discriminatedUnion(
	'type',
	EVENT_TYPES.map(({ value, fields }) =>
		z
			.object({
				type: z.literal(value),
				...Object.fromEntries(
					fields.map((field) => {
						const { apiName, schema, property } = FILTER_FIELDS[field] as FilterField;
						return [apiName, property.required ? schema : schema.optional()];
					}),
				),
			})
			.strict(),
	) as unknown as [z.ZodDiscriminatedUnionOption<'type'>, ...Array<z.ZodDiscriminatedUnionOption<'type'>>],
);

/**
 * The `events` parameter as the service's filter objects. Only the fields the
 * chosen type takes are sent, empty ones are left out; whether the result is
 * valid is for `eventFilterSchema` to say.
 */
export function toEventFilters(events: IDataObject | undefined): IDataObject[] {
	const filters = (events?.filter ?? []) as IDataObject[];
	return filters.map((entry) => {
		const type = EVENT_TYPES.find((candidate) => candidate.value === entry.type);
		const filter: IDataObject = { type: entry.type };
		for (const field of type?.fields ?? []) {
			const raw = entry[field];
			const value = typeof raw === 'string' ? raw.trim() : raw;
			if (value === undefined || value === null || value === '') continue;
			const { apiName, toApi } = FILTER_FIELDS[field] as FilterField;
			filter[apiName] = toApi ? toApi(value) : value;
		}
		return filter;
	});
}
