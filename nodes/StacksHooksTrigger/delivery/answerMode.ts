/**
 * When a delivery is answered: at once (n8n's `onReceived`, the default), or once the workflow has
 * finished (n8n's `lastNode`). The service sends a hook's next delivery only after the answer to the
 * one before (test/emulator/README.md says what that rests on), so answering when the workflow has
 * finished makes one hook's executions run one at a time, in the order of the chain; a failed
 * workflow is answered 500 by n8n and the service sends the delivery again.
 *
 * n8n reads `responseMode` and `responseData` from the webhook description for every request. As
 * expressions of the node's parameters they would cost every delivery an expression evaluation
 * (n8n 2.x sets up a sandboxed isolate for one), so each also carries a native resolver under
 * n8n-workflow's WEBHOOK_RESOLVERS symbol: n8n 2.41 uses it instead whenever the node's parameters
 * hold no expression. n8n-workflow's own `webhookDescriptionFields`/`fromParameter` build the same
 * two things, but n8n 1.x, which this package supports, does not have them (importing them would
 * fail there), so they are written out here; test/suites/engine/answerMode.test.ts holds them equal.
 */
import type { INodeProperties, IWebhookDescription } from 'n8n-workflow';

export type AnswerMode = 'onReceived' | 'lastNode';

export const answerModeProperty: INodeProperties = {
	displayName: 'Respond',
	name: 'responseMode',
	type: 'options',
	options: [
		{
			name: 'Immediately',
			value: 'onReceived',
			description:
				'As soon as the delivery is checked and its execution queued. Fastest; executions of one hook can overlap and finish in any order.',
		},
		{
			name: 'When the Workflow Finishes (In Order)',
			value: 'lastNode',
			description:
				"Only once the workflow has run, so the service sends the hook's next delivery only then: one hook's executions run one at a time, in order. A failed workflow is answered 500 and the service sends the delivery again.",
		},
	],
	default: 'onReceived',
	description: 'When the service gets its answer to a delivery',
};

/** Shown with When the Workflow Finishes: what queue mode needs for it (docs/queue-mode.md). */
export const answerModeQueueNotice: INodeProperties = {
	displayName:
		"In queue mode, set N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED=1000 on every n8n process: without it n8n can miss that a quick execution finished, and the delivery waits for the service's time-out before it is sent again",
	name: 'answerModeQueueNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { responseMode: ['lastNode'] } },
};

/** The `template` is what the editor and n8n 1.x evaluate; `resolve` is the same rule, for n8n 2.41 without an expression. */
interface Field {
	template: string;
	resolve: (parameters: Record<string, unknown>) => unknown;
}

const modeOf = (parameters: Record<string, unknown>): AnswerMode => (parameters.responseMode === 'lastNode' ? 'lastNode' : 'onReceived');

const FIELDS: Record<'responseMode' | 'responseData', Field> = {
	responseMode: {
		template: '={{$parameter["responseMode"] === "lastNode" ? "lastNode" : "onReceived"}}',
		resolve: modeOf,
	},
	// Immediately: '' makes n8n answer with the webhookResponse webhook() returns ({received, items}).
	// In order: no body (the service reads the status only), not the last node's items.
	responseData: {
		template: '={{$parameter["responseMode"] === "lastNode" ? "noData" : ""}}',
		resolve: (parameters) => (modeOf(parameters) === 'lastNode' ? 'noData' : ''),
	},
};

/** The symbol n8n-workflow 2.41 exports as WEBHOOK_RESOLVERS (a registered symbol, the same in every copy). */
const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** Spread into the webhook description: each field's template, and their resolvers under WEBHOOK_RESOLVERS. */
export const answerModeFields = {
	responseMode: FIELDS.responseMode.template,
	responseData: FIELDS.responseData.template,
	[WEBHOOK_RESOLVERS]: FIELDS,
} as unknown as Pick<IWebhookDescription, 'responseMode' | 'responseData'>;
