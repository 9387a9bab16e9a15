import type { INodeProperties } from 'n8n-workflow';

import type { Operation } from '../types';
import * as rotate from './rotate.operation';

export const operations: Record<string, Operation> = { rotate };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['secret'] } },
		options: [
			{
				name: 'Rotate',
				value: 'rotate',
				description: 'Replace the consumer secret sent with every delivery',
				action: 'Rotate the consumer secret',
			},
		],
		default: 'rotate',
	},
	...rotate.description,
];
