import type { INodeProperties } from 'n8n-workflow';

import { type Operation, operationProperty, type OperationText } from '../operation';
import * as getStatus from './getStatus.operation';

/** Operation values are part of the node's public interface: saved workflows refer to them. */
type ServiceOperation = 'getStatus';

export const operations: Record<ServiceOperation, Operation> = { getStatus };

const texts: Record<ServiceOperation, OperationText> = {
	getStatus: { name: 'Get API Status', description: 'Check whether the service is ready, and retrieve its version', action: 'Get API status' },
};

export const description: INodeProperties[] = [operationProperty('service', texts, 'getStatus'), ...getStatus.description];
