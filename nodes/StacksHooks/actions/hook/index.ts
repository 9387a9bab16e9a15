import type { INodeProperties } from 'n8n-workflow';

import { type Operation, operationProperty, type OperationText } from '../operation';
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
type HookOperation = 'create' | 'delete' | 'disable' | 'disableMany' | 'enable' | 'enableMany' | 'evaluate' | 'get' | 'getAll' | 'update';

export const operations: Record<HookOperation, Operation> = {
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

const texts: Record<HookOperation, OperationText> = {
	delete: { name: 'Delete', description: 'Delete a hook', action: 'Delete a hook' },
	disable: { name: 'Disable', description: 'Stop a hook from delivering', action: 'Disable a hook' },
	disableMany: { name: 'Disable Many', description: 'Disable every hook matching filters', action: 'Disable many hooks' },
	enable: { name: 'Enable', description: 'Let a hook deliver', action: 'Enable a hook' },
	enableMany: { name: 'Enable Many', description: 'Enable every hook matching filters', action: 'Enable many hooks' },
	evaluate: { name: 'Evaluate', description: 'Test a hook against one block', action: 'Evaluate a hook against a block' },
	get: { name: 'Get', description: 'Get a hook', action: 'Get a hook' },
	getAll: { name: 'Get Many', description: 'List the hooks of the account', action: 'Get many hooks' },
	create: { name: 'Register', description: 'Register a new hook', action: 'Register a hook' },
	update: { name: 'Update', description: 'Change the definition of a hook', action: 'Update a hook' },
};

export const description: INodeProperties[] = [
	operationProperty('hook', texts, 'create'),
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
