import type { INodeProperties } from 'n8n-workflow';

import { type Operation, operationProperty, type OperationText } from '../operation';
import * as deleteSecret from './delete.operation';
import * as get from './get.operation';
import * as rotate from './rotate.operation';

/** Operation values are part of the node's public interface: saved workflows refer to them. */
type SecretOperation = 'get' | 'rotate' | 'delete';

export const operations: Record<SecretOperation, Operation> = { get, rotate, delete: deleteSecret };

const texts: Record<SecretOperation, OperationText> = {
	delete: {
		name: 'Delete',
		description: 'Delete the consumer secret, so deliveries are sent without one',
		action: 'Delete consumer secret',
	},
	get: { name: 'Get', description: 'Retrieve the consumer secret sent with every delivery', action: 'Get consumer secret' },
	rotate: {
		name: 'Rotate',
		description: 'Replace the consumer secret sent with every delivery',
		action: 'Rotate consumer secret',
	},
};

export const description: INodeProperties[] = [
	// The default stays Rotate: n8n leaves default values out of saved workflows, so a workflow saved
	// with Rotate when it was the only operation would silently become another one.
	operationProperty('secret', texts, 'rotate'),
	...get.description,
	...rotate.description,
	...deleteSecret.description,
];
