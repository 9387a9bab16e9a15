import type { INodeProperties } from 'n8n-workflow';

import { type Operation, operationProperty, type OperationText } from '../operation';
import * as rotate from './rotate.operation';

type SecretOperation = 'rotate';

export const operations: Record<SecretOperation, Operation> = { rotate };

const texts: Record<SecretOperation, OperationText> = {
	rotate: {
		name: 'Rotate',
		description: 'Replace the consumer secret sent with every delivery',
		action: 'Rotate the consumer secret',
	},
};

export const description: INodeProperties[] = [operationProperty('secret', texts, 'rotate'), ...rotate.description];
