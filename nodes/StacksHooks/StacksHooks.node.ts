import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import '../shared/n8nVersion';

import { CREDENTIAL_TYPE } from '../shared/constants';
import * as hook from './actions/hook';
import { type Resource, router } from './actions/router';
import * as secret from './actions/secret';
import * as service from './actions/service';
import * as watchList from './actions/watchList';
import { searchHooks } from './methods/listSearch';

export class StacksHooks implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Stacks Hooks',
		name: 'stacksHooks',
		icon: { light: 'file:../icons/stacksHooks.svg', dark: 'file:../icons/stacksHooks.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: 'Register and manage hooks that post Stacks blockchain events to a webhook (Hiro Chainhooks), and the watch lists of addresses triggers watch',
		defaults: { name: 'Stacks Hooks' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Consumer Secret', value: 'secret' },
					{ name: 'Hook', value: 'hook' },
					{ name: 'Service', value: 'service' },
					{ name: 'Watch List', value: 'watchList' },
				] satisfies Array<{ name: string; value: Resource }>,
				default: 'hook',
			},
			...hook.description,
			...secret.description,
			...service.description,
			...watchList.description,
		],
	};

	methods = { listSearch: { searchHooks } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
