import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import '../shared/n8nVersion';

import { CREDENTIAL_TYPE } from '../shared/constants';
import type { EventFilter } from '../shared/chainEvents';
import { toEventFilters, triggerOnProperty } from '../shared/eventFilters';
import { hookOptionsProperty } from '../shared/hookOptions';
import { isAuthentic } from './accountSecret';
import { presentedSecrets } from './consumerSecret';
import { deliveryToItems, type OutputMode, type RollbackMode } from './delivery';
import { checkDeliveryShape } from './deliveryShape';
import { DEFAULT_HEALTH_CHECK_MINUTES, startHealthChecks } from './healthCheck';
import { checkExists, create, remove } from './lifecycle';
import { handOverTestDelivery, receiveTestDelivery, testEventResponse } from './manualRun';
import { sampleBlockProperties } from './sampleBlock';

export class StacksHooksTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Stacks Hooks Trigger',
		name: 'stacksHooksTrigger',
		icon: { light: 'file:../icons/stacksHooks.svg', dark: 'file:../icons/stacksHooks.dark.svg' },
		group: ['trigger'],
		// One version, and deliberately not 1: for every request to a webhook node of typeVersion 1,
		// n8n evaluates the Webhook node v1's legacy option `={{$parameter["options"]["binaryData"]}}`
		// before calling webhook() (n8n packages/cli/src/webhooks/webhook-helpers.ts, parseRequestBody:
		// `if (nodeVersion === 1) binaryData = workflow.expression.getSimpleParameterValue(...)`, n8n 2.41).
		// That sandboxed evaluation costs more than everything else a delivery needs (npm run bench, 1a-1c).
		version: 1.1,
		subtitle: '={{ ($parameter["events"].filter || []).map(f => f.type).join(", ") }}',
		description: 'Starts the workflow when matching events happen on the Stacks blockchain',
		// What the editor shows while it listens for a test event.
		eventTriggerDescription: 'Waiting for matching events on the Stacks blockchain, or for the Sample Block to be replayed',
		defaults: { name: 'Stacks Hooks Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty, so that n8n answers an accepted delivery with the webhookResponse webhook() returns
				// (its default, 'firstEntryJson', would be sent as the body itself). Not an expression: n8n
				// resolves it without an expression isolate.
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'On activation this registers a hook at the service that posts matching events to this workflow, and deletes it on deactivation. n8n must be reachable over HTTPS (set WEBHOOK_URL). Deliveries are checked against the consumer secret of the account, which the trigger reads from the service: the credential needs only the API key.',
				name: 'activationNotice',
				type: 'notice',
				default: '',
			},
			triggerOnProperty,
			{
				displayName: 'Hook Name',
				name: 'hookName',
				type: 'string',
				default: '',
				placeholder: 'e.g. Treasury transfers',
				description: 'The name of the hook at the service. Leave empty for one that names n8n and this workflow.',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				options: [
					{ name: 'One Item per Block', value: 'block', description: 'Each block, with its matching transactions, as an item' },
					{
						name: 'One Item per Event',
						value: 'event',
						description:
							'Each event the filters above select (a transfer, a mint, a print, a call, ...) as a flat item: type, asset or contract, sender, recipient, amount, print value, and its transaction and block',
					},
					{ name: 'One Item per Transaction', value: 'transaction', description: 'Each matching transaction as an item' },
					{ name: 'Whole Delivery', value: 'delivery', description: 'The payload as the service sent it, as one item' },
				],
				default: 'transaction',
			},
			{
				displayName: 'Rollbacks',
				name: 'rollbacks',
				type: 'options',
				options: [
					{ name: 'Ignore', value: 'ignore', description: 'Only output applied blocks' },
					{
						name: 'Include',
						value: 'include',
						description: 'Also output blocks a chain reorganisation undid, marked with direction "rollback"',
					},
				],
				default: 'include',
			},
			...sampleBlockProperties,
			hookOptionsProperty('trigger', {}, [
				{
					displayName: 'Health Check Interval (Minutes)',
					name: 'healthCheckMinutes',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: DEFAULT_HEALTH_CHECK_MINUTES,
					description:
						'How often, while the workflow is active, the trigger checks that its hook still delivers, and enables it again or registers it again if it does not. One request per check. 0 turns the check off.',
				},
			]),
		],
	};

	/**
	 * Beside the webhook: n8n runs trigger() for every active workflow, at start-up and on activation, and
	 * closes it on deactivation. Here it runs the health check (healthCheck.ts). In a test run (manual
	 * mode) n8n calls it for the node's output instead: it emits the test delivery (manualRun.ts).
	 */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return this.getMode() === 'manual' ? testEventResponse(this) : startHealthChecks(this);
	}

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await remove.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		// Refusals, and acceptances that start nothing, are answered here at once. An accepted delivery
		// that starts an execution is answered by n8n with the returned webhookResponse only once the
		// execution is saved and (in queue mode) queued: a 200 sent earlier would be lost with the
		// delivery if n8n stopped in between, and the service would not send it again.
		const res = this.getResponseObject();
		const answer = (status: number, body: IDataObject): IWebhookResponseData => {
			res.status(status).json(body);
			return { noWebhookResponse: true };
		};

		// No credential load and no request here unless the secret does not match (see accountSecret.ts).
		const staticData = this.getWorkflowStaticData('node');
		const keptBefore = staticData.consumerSecret;
		if (!(await isAuthentic(this, presentedSecrets(this.getHeaderData() as IDataObject)))) {
			return answer(401, { error: 'Unauthorized', details: 'Missing or wrong consumer secret' });
		}

		const shape = checkDeliveryShape(this.getBodyData());
		if (!shape.ok) return answer(400, { error: 'Bad Request', details: `Not a hook delivery: ${shape.problem}` });
		if (this.getMode() === 'manual') await receiveTestDelivery(this);

		const output = this.getNodeParameter('output', 'transaction') as OutputMode;
		const items = deliveryToItems(
			shape.delivery,
			output,
			this.getNodeParameter('rollbacks', 'include') as RollbackMode,
			output === 'event' ? (toEventFilters(this.getNodeParameter('events', {}) as IDataObject) as unknown as EventFilter[]) : [],
		);
		const accepted = { received: true, items: items.length };
		// Nothing left to output (e.g. only rollbacks, ignored): no execution.
		if (items.length === 0) return answer(200, accepted);
		const workflowData = [this.helpers.returnJsonArray(items)];
		if (this.getMode() === 'manual') handOverTestDelivery(this, workflowData);
		// n8n saves what webhook() changed in the static data (here: a secret read again after a
		// rotation) only when the node has answered before the execution starts; this one delivery is
		// answered at once, every other after its execution is queued.
		if (staticData.consumerSecret !== keptBefore) return { ...answer(200, accepted), workflowData };
		return { webhookResponse: accepted, workflowData };
	}
}
