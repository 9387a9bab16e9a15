/**
 * The trigger's Respond parameter as n8n reads it from the webhook description for every request:
 * through the native resolver (n8n 2.41, parameters without expressions) and through the expression
 * engine (n8n 1.x, or parameters holding an expression) the two give the same response mode and
 * response data, for every value the parameter can hold. The behaviour itself (answered only when
 * the workflow has finished, one execution at a time) is shown in a real n8n by
 * test/suites/e2e/record.e2e.test.ts.
 */
import type { INode, INodeParameters, INodeTypes, IWebhookDescription } from 'n8n-workflow';
import { NodeHelpers, resolveWebhookDescriptionField, webhookDescriptionIsNativelyResolvable, Workflow } from 'n8n-workflow';

import { StacksHooksTrigger } from '../../../nodes/StacksHooksTrigger/StacksHooksTrigger.node';

const trigger = new StacksHooksTrigger();
const description = trigger.description.webhooks!.find((webhook) => webhook.name === 'default') as IWebhookDescription;
const TYPE = 'n8n-nodes-stacks-hooks.stacksHooksTrigger';

/** The trigger node as the Workflow constructor gives it to n8n: its parameters with their defaults applied. */
function workflowWith(parameters: INodeParameters): { workflow: Workflow; node: INode } {
	const nodeTypes: INodeTypes = {
		getByName: () => trigger,
		getByNameAndVersion: () => trigger,
		getKnownTypes: () => ({}),
	};
	const given: INode = { id: 'n1', name: 'Trigger', type: TYPE, typeVersion: 1.1, position: [0, 0], parameters, webhookId: 'w1' };
	const workflow = new Workflow({ id: 'wf1', nodes: [given], connections: {}, active: true, nodeTypes, settings: { executionOrder: 'v1' } });
	return { workflow, node: workflow.nodes.Trigger };
}

/** What n8n 2.41's webhook helpers do: the native resolver when it applies, else the expression engine. */
function resolveBoth(parameters: INodeParameters, field: 'responseMode' | 'responseData', fallback: string) {
	const { workflow, node } = workflowWith(parameters);
	const native = resolveWebhookDescriptionField(node, description, field);
	const engine = workflow.expression.getSimpleParameterValue(node, description[field] as string, 'webhook', {}, undefined, fallback);
	return { native, engine };
}

describe('Respond (the answer mode)', () => {
	it('is offered as Immediately (the default) and When the Workflow Finishes', () => {
		const property = trigger.description.properties.find((p) => p.name === 'responseMode')!;
		expect(property.default).toBe('onReceived');
		expect(property.options!.map((option) => 'value' in option && option.value)).toEqual(['onReceived', 'lastNode']);
	});

	it('shows the queue-mode notice with When the Workflow Finishes only', () => {
		const notice = trigger.description.properties.find((p) => p.name === 'answerModeQueueNotice')!;
		const shownWith = (responseMode: string) => NodeHelpers.displayParameter({ responseMode }, notice, { typeVersion: 1.1 }, trigger.description);
		expect([shownWith('onReceived'), shownWith('lastNode')]).toEqual([false, true]);
		expect(notice.displayName).toContain('N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED');
	});

	it.each([
		['not set (a workflow saved before the parameter existed)', {}, 'onReceived', ''],
		['Immediately', { responseMode: 'onReceived' }, 'onReceived', ''],
		['When the Workflow Finishes', { responseMode: 'lastNode' }, 'lastNode', 'noData'],
	])('%s: the native resolver and the expression engine agree', (_label, parameters: INodeParameters, mode, data) => {
		const given = { events: { filter: [{ type: 'stx_transfer' }] }, ...parameters };
		for (const [field, expected, fallback] of [
			['responseMode', mode, 'onReceived'],
			['responseData', data, 'firstEntryJson'],
		] as const) {
			const { native, engine } = resolveBoth(given, field, fallback);
			expect(native).toEqual({ resolved: true, value: expected });
			expect(engine).toBe(expected);
		}
	});

	it('costs a delivery no expression when the parameters hold none, and falls back to the engine when they do', () => {
		expect(webhookDescriptionIsNativelyResolvable(description)).toBe(true);
		const { native, engine } = resolveBoth({ responseMode: 'lastNode', hookName: '={{ "Treasury " + $workflow.id }}' }, 'responseMode', 'onReceived');
		expect(native).toEqual({ resolved: false });
		expect(engine).toBe('lastNode');
	});
});
