import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { validate } from '../../../shared/definition';
import { eventsProperty, toEventFilters } from '../../../shared/eventFilters';
import { hookOptionsProperty, toHookOptions } from '../../../shared/hookOptions';
import { definitionUpdateSchema } from '../../../shared/schemas';
import { HooksClient } from '../../../shared/api/client';
import { hookIdLocator } from './common.descriptions';
import { getHookId } from './common.helpers';

const properties: INodeProperties[] = [
	hookIdLocator,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'The parts of the definition to change; what is not set stays as it is',
		options: [
			{ ...eventsProperty, required: false, default: {} },
			hookOptionsProperty('action', { displayName: 'Hook Options', name: 'hookOptions' }),
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				placeholder: 'e.g. Treasury transfers',
				description: 'The new name of the hook',
			},
			{
				displayName: 'Webhook URL',
				name: 'webhookUrl',
				type: 'string',
				default: '',
				placeholder: 'e.g. https://example.com/webhooks/stacks',
				description: 'The new HTTPS address the service posts matches to',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['update'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const uuid = getHookId(this, itemIndex);
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const update: IDataObject = {};
	if (typeof fields.name === 'string' && fields.name.trim()) update.name = fields.name.trim();
	if (typeof fields.webhookUrl === 'string' && fields.webhookUrl.trim()) {
		update.action = { type: 'http_post', url: fields.webhookUrl.trim() };
	}
	if (fields.events !== undefined) update.filters = { events: toEventFilters(fields.events as IDataObject) };
	const options = toHookOptions(fields.hookOptions as IDataObject | undefined);
	if (options) update.options = options;

	const body = validate(this.getNode(), definitionUpdateSchema, update, 'update', itemIndex);
	const client = await HooksClient.connect(this, { itemIndex });
	await client.update(uuid, body);
	// What the service answers to an update is not documented: read the hook back so the item is what it now holds.
	return (await client.get(uuid)) as IDataObject;
}
