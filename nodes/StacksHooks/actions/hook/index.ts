import type { INodeProperties } from 'n8n-workflow';

import { type Operation, operationProperty, type OperationText } from '../operation';
import * as backfill from './backfill.operation';
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
type HookOperation = 'backfill' | 'create' | 'delete' | 'disable' | 'disableMany' | 'enable' | 'enableMany' | 'evaluate' | 'get' | 'getAll' | 'update';

export const operations: Record<HookOperation, Operation> = {
	backfill,
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

/**
 * n8n's wording (docs.n8n.io UX guidelines, "Operations name, action, and description"): the name in
 * Title Case without the resource, the action in sentence case with the resource and without articles,
 * the description a sentence that names the resource and says a bit more.
 */
const texts: Record<HookOperation, OperationText> = {
	// "Register", not n8n's "Create": the guideline asks for the service's own terminology, and the
	// service (Hiro Chainhooks) and its docs register hooks. The value stays `create`.
	backfill: {
		name: 'Backfill',
		description: "Replay a range of blocks into a hook: the service evaluates each and posts the matches to the hook's webhook",
		action: 'Backfill hook with blocks',
	},
	create: { name: 'Register', description: 'Register a new hook that posts matching chain events to a webhook', action: 'Register hook' },
	delete: { name: 'Delete', description: 'Delete a hook permanently', action: 'Delete hook' },
	disable: { name: 'Disable', description: 'Stop a hook from delivering, without deleting it', action: 'Disable hook' },
	disableMany: { name: 'Disable Many', description: 'Stop every hook that matches the filters from delivering', action: 'Disable many hooks' },
	enable: { name: 'Enable', description: 'Let a hook deliver matching events', action: 'Enable hook' },
	enableMany: { name: 'Enable Many', description: 'Let every hook that matches the filters deliver', action: 'Enable many hooks' },
	evaluate: { name: 'Evaluate', description: 'Test a hook against one block', action: 'Evaluate hook against block' },
	get: { name: 'Get', description: 'Retrieve a hook', action: 'Get hook' },
	getAll: { name: 'Get Many', description: 'Retrieve a list of hooks', action: 'Get many hooks' },
	update: { name: 'Update', description: "Change a hook's name, webhook URL, events or options", action: 'Update hook' },
};

export const description: INodeProperties[] = [
	operationProperty('hook', texts, 'create'),
	...backfill.description,
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
