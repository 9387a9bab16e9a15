import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { jsonParse, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { buildDefinition, validate } from '../../../shared/definition';
import { eventsProperty, toEventFilters } from '../../../shared/eventFilters';
import { hookOptionsProperty } from '../../../shared/hookOptions';
import { definitionSchema } from '../../../shared/schemas';
import { HooksClient } from '../../../shared/api/client';

const properties: INodeProperties[] = [
	{
		displayName: 'Specify By',
		name: 'specifyBy',
		type: 'options',
		options: [
			{ name: 'Fields', value: 'fields', description: 'Fill in the name, webhook URL and events' },
			{ name: 'JSON', value: 'json', description: 'Paste a whole hook definition' },
		],
		default: 'fields',
	},
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. Treasury transfers',
		description: 'A name to tell the hook apart in lists and in deliveries',
		displayOptions: { show: { specifyBy: ['fields'] } },
	},
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://example.com/webhooks/stacks',
		description: 'Where the service posts each match. Must use HTTPS.',
		displayOptions: { show: { specifyBy: ['fields'] } },
	},
	{ ...eventsProperty, displayOptions: { show: { specifyBy: ['fields'] } } },
	hookOptionsProperty('action', { displayOptions: { show: { specifyBy: ['fields'] } } }),
	{
		displayName: 'Definition (JSON)',
		name: 'definitionJson',
		type: 'json',
		required: true,
		default:
			'{\n  "name": "My hook",\n  "filters": { "events": [{ "type": "stx_transfer" }] },\n  "action": { "type": "http_post", "url": "https://example.com/webhooks/stacks" }\n}',
		description:
			'A hook definition as the service takes it. "version", "chain" and "network" may be left out: they default to "1", "stacks" and the credential\'s network.',
		displayOptions: { show: { specifyBy: ['json'] } },
	},
];

export const description = updateDisplayOptions({ show: { resource: ['hook'], operation: ['create'] } }, properties);

function definitionFromJson(this: IExecuteFunctions, itemIndex: number, network: string) {
	const raw = this.getNodeParameter('definitionJson', itemIndex);
	let parsed: unknown = raw;
	if (typeof raw === 'string') {
		try {
			parsed = jsonParse(raw);
		} catch (error) {
			throw new NodeOperationError(this.getNode(), "'Definition (JSON)' is not valid JSON", {
				description: `${(error as Error).message}. Correct the JSON, or set the field with an expression that returns an object.`,
				itemIndex,
			});
		}
	}
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw new NodeOperationError(this.getNode(), "'Definition (JSON)' must be a JSON object", {
			description: 'Give the whole hook definition as one object: { "name": …, "filters": …, "action": … }.',
			itemIndex,
		});
	}
	const definition = { version: '1', chain: 'stacks', network, ...(parsed as IDataObject) };
	if (definition.network !== network) {
		throw new NodeOperationError(
			this.getNode(),
			`The definition is for ${String(definition.network)}, but the credential is for ${network}`,
			{
				description: `Hooks are registered per network: use a credential of that network, or change "network" in 'Definition (JSON)'.`,
				itemIndex,
			},
		);
	}
	return validate(this.getNode(), definitionSchema, definition, 'hook definition', itemIndex);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const client = await HooksClient.connect(this, { itemIndex });
	const { connection } = client;
	const definition =
		this.getNodeParameter('specifyBy', itemIndex) === 'json'
			? definitionFromJson.call(this, itemIndex, connection.network)
			: buildDefinition(
					this.getNode(),
					{
						name: this.getNodeParameter('name', itemIndex) as string,
						webhookUrl: (this.getNodeParameter('webhookUrl', itemIndex) as string).trim(),
						network: connection.network,
						filters: toEventFilters(this.getNodeParameter('events', itemIndex, {}) as IDataObject),
						options: this.getNodeParameter('options', itemIndex, {}) as IDataObject,
					},
					itemIndex,
				);
	return (await client.register(definition)) as IDataObject;
}
