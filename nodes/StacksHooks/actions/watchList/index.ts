import type { INodeProperties } from 'n8n-workflow';

import { type Operation, operationProperty, type OperationText } from '../operation';
import * as add from './add.operation';
import * as get from './get.operation';
import * as remove from './remove.operation';
import * as replace from './replace.operation';

/** Operation values are part of the node's public interface: saved workflows refer to them. */
type WatchListOperation = 'add' | 'get' | 'remove' | 'replace';

export const operations: Record<WatchListOperation, Operation> = { add, get, remove, replace };

const texts: Record<WatchListOperation, OperationText> = {
	add: {
		name: 'Add Addresses',
		description: 'Add one address per item to a watch list; triggers watching it follow within seconds',
		action: 'Add addresses to watch list',
	},
	get: { name: 'Get', description: 'Retrieve the addresses of a watch list and the triggers watching it', action: 'Get watch list' },
	remove: {
		name: 'Remove Addresses',
		description: 'Remove one address per item from a watch list; triggers watching it follow within seconds',
		action: 'Remove addresses from watch list',
	},
	replace: {
		name: 'Replace Addresses',
		description: "Make a watch list exactly the items' addresses, e.g. every row of a Data Table; triggers watching it follow within seconds",
		action: 'Replace addresses of watch list',
	},
};

export const description: INodeProperties[] = [operationProperty('watchList', texts, 'add'), ...add.description, ...get.description, ...remove.description, ...replace.description];
