/**
 * The event filters of a hook, as both nodes show and send them: one
 * description (the action node's Register and the trigger use the same), and
 * the one mapping from its camelCase fields to the service's filter objects.
 */
import type { IDataObject, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { EventFilter } from './schemas';

type FilterField =
	| 'sender'
	| 'receiver'
	| 'assetIdentifier'
	| 'contractIdentifier'
	| 'functionName'
	| 'value'
	| 'cause'
	| 'principal';

interface EventType extends INodePropertyOptions {
	value: EventFilter['type'];
	fields: FilterField[];
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

const typesWith = (field: FilterField) =>
	EVENT_TYPES.filter((type) => type.fields.includes(field)).map((type) => type.value);

const ADDRESS_HINT = 'A Stacks address (SP… on mainnet, ST… on testnet) or a contract identifier (ADDRESS.contract-name)';

const fieldProperties: Record<FilterField, INodeProperties> = {
	sender: {
		displayName: 'Sender',
		name: 'sender',
		type: 'string',
		default: '',
		placeholder: 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM',
		description: `Only events sent by this principal. ${ADDRESS_HINT}. Leave empty for any sender.`,
	},
	receiver: {
		displayName: 'Receiver',
		name: 'receiver',
		type: 'string',
		default: '',
		placeholder: 'ST2CY5V39NHDPWSXMW9QDT3HC3GD6Q6XX4CFRK9AG',
		description: `Only events received by this principal. ${ADDRESS_HINT}. Leave empty for any receiver.`,
	},
	assetIdentifier: {
		displayName: 'Asset Identifier',
		name: 'assetIdentifier',
		type: 'string',
		default: '',
		placeholder: 'SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.my-token::token',
		description: 'Only this token: ADDRESS.contract-name::asset-name. Leave empty for any asset.',
	},
	contractIdentifier: {
		displayName: 'Contract Identifier',
		name: 'contractIdentifier',
		type: 'string',
		default: '',
		placeholder: 'SP2J6ZY48GV1EZ5V2V5RB9MP66SW86PYKKNRV9EJ7.my-contract',
		description: 'Only this contract: ADDRESS.contract-name. Leave empty for any contract.',
	},
	functionName: {
		displayName: 'Function Name',
		name: 'functionName',
		type: 'string',
		default: '',
		placeholder: 'transfer',
		description: 'Only calls of this public function. Leave empty for any function.',
	},
	value: {
		displayName: 'Token ID',
		name: 'value',
		type: 'string',
		default: '',
		placeholder: '42',
		description: 'Only the NFT with this integer ID. Leave empty for any token.',
	},
	cause: {
		displayName: 'Cause',
		name: 'cause',
		type: 'options',
		options: [
			{ name: 'Block Found', value: 'block_found' },
			{ name: 'Extended', value: 'extended' },
		],
		default: 'block_found',
		description: 'Which tenure changes to match',
	},
	principal: {
		displayName: 'Principal',
		name: 'principal',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM',
		description: `The principal whose balance changes are matched. ${ADDRESS_HINT}.`,
	},
};

/** The `events` parameter: several filters, OR-ed by the service. */
export const eventsProperty: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'fixedCollection',
	placeholder: 'Add Event Filter',
	required: true,
	typeOptions: { multipleValues: true },
	default: { filter: [{ type: 'stx_transfer' }] },
	description: 'The chain events to match. A hook fires when any one of these filters matches.',
	options: [
		{
			displayName: 'Filter',
			name: 'filter',
			values: [
				{
					displayName: 'Type',
					name: 'type',
					type: 'options',
					options: EVENT_TYPES.map(({ name, value, description }) => ({ name, value, description })),
					default: 'stx_transfer',
					description: 'The kind of chain event',
				},
				...(Object.keys(fieldProperties) as FilterField[]).map((field) => ({
					...fieldProperties[field],
					displayOptions: { show: { type: typesWith(field) } },
				})),
			],
		},
	],
};

const API_FIELD: Record<FilterField, string> = {
	sender: 'sender',
	receiver: 'receiver',
	assetIdentifier: 'asset_identifier',
	contractIdentifier: 'contract_identifier',
	functionName: 'function_name',
	value: 'value',
	cause: 'cause',
	principal: 'principal',
};

/**
 * The `events` parameter as the service's filter objects. Only the fields the
 * chosen type takes are sent, empty ones are left out, and a token ID becomes
 * a number; whether the result is valid is for the schema to say.
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
			filter[API_FIELD[field]] = field === 'value' && /^-?\d+$/.test(String(value)) ? Number(value) : value;
		}
		return filter;
	});
}
