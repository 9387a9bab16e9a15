/** What several hook operations share: the hook picker, and switching hooks on or off. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { UUID_PATTERN } from '../../../shared/constants';
import { validate } from '../../../shared/definition';
import { setHookEnabled } from '../../../shared/hooks';
import { bulkFiltersSchema, bulkResultSchema, uuidSchema } from '../../../shared/schemas';
import { apiRequest } from '../../../shared/transport';

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

/** The chosen hook's UUID, refused before any request when it is not one. */
export function getHookId(this: IExecuteFunctions, itemIndex: number): string {
	const value = this.getNodeParameter('hookId', itemIndex, '', { extractValue: true });
	const id = typeof value === 'string' ? value.trim() : String(value ?? '');
	if (!uuidSchema.safeParse(id).success) {
		throw new NodeOperationError(
			this.getNode(),
			id ? `"${id}" is not a hook ID: hook IDs are UUIDs` : 'No hook chosen',
			{
				description: 'Pick the hook from the list, or give its UUID (e.g. from the output of Get Many).',
				itemIndex,
			},
		);
	}
	return id;
}

export async function setEnabled(this: IExecuteFunctions, itemIndex: number, enabled: boolean): Promise<IDataObject> {
	const uuid = getHookId.call(this, itemIndex);
	await setHookEnabled(this, uuid, enabled, itemIndex);
	return { uuid, enabled };
}

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
			description: 'Comma-separated hook UUIDs (at most 200)',
		},
		{
			displayName: 'Statuses',
			name: 'statuses',
			type: 'multiOptions',
			options: [
				{ name: 'Expired', value: 'expired' },
				{ name: 'Interrupted', value: 'interrupted' },
				{ name: 'New', value: 'new' },
				{ name: 'Streaming', value: 'streaming' },
			],
			default: [],
			description: 'Hooks in any of these statuses',
		},
		{
			displayName: 'Webhook URL',
			name: 'webhookUrl',
			type: 'string',
			default: '',
			placeholder: 'https://n8n.example.com/webhook/…',
			description: 'Hooks that post to this URL',
		},
	],
};

export async function bulkSetEnabled(this: IExecuteFunctions, itemIndex: number, enabled: boolean): Promise<IDataObject> {
	const raw = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const filters: IDataObject = {};
	if (typeof raw.webhookUrl === 'string' && raw.webhookUrl.trim()) filters.webhook_url = raw.webhookUrl.trim();
	const uuids = String(raw.uuids ?? '')
		.split(/[\s,]+/)
		.filter(Boolean);
	if (uuids.length) filters.uuids = [...new Set(uuids)];
	if (Array.isArray(raw.statuses) && raw.statuses.length) filters.statuses = raw.statuses;
	const body = { enabled, filters: validate(this.getNode(), bulkFiltersSchema, filters, 'filters', itemIndex) };
	const result = await apiRequest(this, 'PATCH', '/me/enabled', { body, schema: bulkResultSchema, itemIndex });
	return { enabled, updated_uuids: result.updated_uuids, updated_count: result.updated_uuids.length };
}
