import type {
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
import { hookOptionsProperty } from '../shared/hookOptions';
import { answerModeFields, answerModeProperty, answerModeQueueNotice } from './delivery/answerMode';
import { receiveDelivery } from './delivery/receive';
import { DEFAULT_CATCH_UP_LIMIT } from './healthCheck/check';
import { DEFAULT_STALL_MINUTES } from './healthCheck/planning/incidents';
import { startHealthChecks } from './healthCheck/run';
import { DEFAULT_HEALTH_CHECK_MINUTES } from './hook/checkInterval';
import { checkExists, create, remove } from './hook/lifecycle';
import { testEventResponse } from './listening/handOver';
import { sampleBlockProperties } from './listening/sampleBlock';
import { watchProperties } from './watch/watching';

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
		subtitle:
			'={{ $parameter["watch"] === "list" ? "Watch list: " + $parameter["listName"] : $parameter["watch"] === "addresses" ? "Address list" : ($parameter["events"].filter || []).map(f => f.type).join(", ") }}',
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
				// At once, or when the workflow has finished (the Respond parameter), each resolved by n8n 2.41
				// without an expression isolate (delivery/answerMode.ts).
				...answerModeFields,
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
			...watchProperties,
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
			answerModeProperty,
			answerModeQueueNotice,
			...sampleBlockProperties,
			hookOptionsProperty('trigger', {}, [
				{
					displayName: 'Health Check Interval (Minutes)',
					name: 'healthCheckMinutes',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: DEFAULT_HEALTH_CHECK_MINUTES,
					description:
						'How often, while the workflow is active, the trigger checks that its hook still delivers (enabling it again or registering it again if it does not) and that every block the service matched reached the workflow, replaying those that did not. One request per check. 0 turns the check off.',
				},
				{
					displayName: 'Catch-Up Limit (Blocks)',
					name: 'catchUpLimit',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 0 },
					default: DEFAULT_CATCH_UP_LIMIT,
					description:
						'The most block heights the trigger replays by itself for one gap (one request each, paced within the rate limit). Of a larger gap it replays the newest and reports the older ones, to backfill. 0 replays nothing.',
				},
				{
					displayName: 'Internal Webhook Address',
					name: 'internalWebhookAddress',
					type: 'string',
					default: '',
					placeholder: 'e.g. http://n8n-webhook:5678',
					description:
						"Where this n8n reaches the processes that take the workflow's deliveries, for the health check to hear what they received, when it cannot reach n8n's public webhook URL from inside (Docker, Kubernetes, no hairpin NAT). In queue mode: an internal load balancer or service in front of the webhook processes, never the main process. In regular mode the check finds n8n where it takes the deliveries by itself: set n8n's own address (such as http://localhost:5678) only if n8n serves HTTPS itself with a certificate for its public name. Empty: the public webhook URL, else where n8n took a delivery.",
				},
				{
					displayName: 'Stall Alert After (Minutes)',
					name: 'stallMinutes',
					type: 'number',
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: DEFAULT_STALL_MINUTES,
					description:
						"How long the service may go without evaluating a block for the hook before the workflow's Error Workflow is told (once, until it evaluates again). Stacks makes a block every few seconds. 0 turns this alert off.",
				},
			]),
		],
	};

	/**
	 * Beside the webhook: n8n runs trigger() for every active workflow, at start-up and on activation, and
	 * closes it on deactivation. Here it runs the health check (healthCheck/run.ts). In a test run (manual
	 * mode) n8n calls it for the node's output instead: it emits the test delivery (listening/handOver.ts).
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

	/** Each delivery: checked, turned into items and answered (delivery/receive.ts). */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery(this);
	}
}
