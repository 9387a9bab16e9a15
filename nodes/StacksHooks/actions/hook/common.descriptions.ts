/** Parameters several hook operations share: the hook picker, a block height, and the filters of the bulk operations. */
import type { INodeProperties } from 'n8n-workflow';

import { HOOK_STATUS_NAMES, HOOK_STATUSES, MAX_BULK_UUIDS, UUID_PATTERN } from '../../../shared/constants';

export const hookIdLocator: INodeProperties = {
	displayName: 'Hook',
	name: 'hookId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The hook to act on',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a hook…',
			typeOptions: { searchListMethod: 'searchHooks', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 2f8c0a52-5b8e-4c1a-9a59-0b3f9cf1a0d7',
			validation: [
				{
					type: 'regex',
					properties: { regex: UUID_PATTERN, errorMessage: 'Not a hook UUID' },
				},
			],
		},
	],
};

/** A required block height (a whole number of 0 or more): Evaluate's block, Backfill's From and To. */
export const blockHeightProperty = (name: string, displayName: string, description: string): INodeProperties => ({
	displayName,
	name,
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 0 },
	required: true,
	default: 0,
	description,
});

export const bulkFiltersProperty: INodeProperties = {
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	description: 'Which hooks to change. Set at least one; a hook must match all that are set.',
	options: [
		{
			displayName: 'Hook IDs',
			name: 'uuids',
			type: 'string',
			default: '',
			placeholder: 'e.g. 2f8c0a52-…, 7d1e44b0-…',
			description: `Comma-separated hook UUIDs (at most ${MAX_BULK_UUIDS})`,
		},
		{
			displayName: 'Statuses',
			name: 'statuses',
			type: 'multiOptions',
			options: HOOK_STATUS_NAMES.map((status) => ({ name: HOOK_STATUSES[status], value: status })).sort((a, b) =>
				a.name.localeCompare(b.name),
			),
			default: [],
			description: 'Hooks in any of these statuses',
		},
		{
			displayName: 'Webhook URL',
			name: 'webhookUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://n8n.example.com/webhook/…',
			description: 'Hooks that post to this URL',
		},
	],
};
