import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../types';
import * as create from './create.operation';
import * as deleteHook from './delete.operation';
import * as disable from './disable.operation';
import * as disableMany from './disableMany.operation';
import * as enable from './enable.operation';
import * as enableMany from './enableMany.operation';
import * as evaluate from './evaluate.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as update from './update.operation';

/** Operation values are part of the node's public interface: saved workflows refer to them. */
export const operations: Record<string, Operation> = {
	create,
	delete: deleteHook,
	disable,
	disableMany,
	enable,
	enableMany,
	evaluate,
	get,
	getAll,
	update,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['hook'] } },
		options: [
			{ name: 'Delete', value: 'delete', description: 'Delete a hook', action: 'Delete a hook' },
			{ name: 'Disable', value: 'disable', description: 'Stop a hook from delivering', action: 'Disable a hook' },
			{ name: 'Disable Many', value: 'disableMany', description: 'Disable every hook matching filters', action: 'Disable many hooks' },
			{ name: 'Enable', value: 'enable', description: 'Let a hook deliver', action: 'Enable a hook' },
			{ name: 'Enable Many', value: 'enableMany', description: 'Enable every hook matching filters', action: 'Enable many hooks' },
			{ name: 'Evaluate', value: 'evaluate', description: 'Test a hook against one block', action: 'Evaluate a hook against a block' },
			{ name: 'Get', value: 'get', description: 'Get a hook', action: 'Get a hook' },
			{ name: 'Get Many', value: 'getAll', description: 'List the hooks of the account', action: 'Get many hooks' },
			{ name: 'Register', value: 'create', description: 'Register a new hook', action: 'Register a hook' },
			{ name: 'Update', value: 'update', description: 'Change the definition of a hook', action: 'Update a hook' },
		],
		default: 'create',
	},
	...create.description,
	...deleteHook.description,
	...disable.description,
	...disableMany.description,
	...enable.description,
	...enableMany.description,
	...evaluate.description,
	...get.description,
	...getAll.description,
	...update.description,
];
