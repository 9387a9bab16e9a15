/**
 * The item loop: each input item runs the chosen operation once; its output
 * items are paired with it. With "On Error: Continue", a failing item becomes
 * an error item and the next items still run.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError } from '../../shared/transport/errors';

import * as hook from './hook';
import * as secret from './secret';
import * as service from './service';
import type { Operation } from './operation';

/** Resource values, like operation values, are part of the node's public interface. */
export type Resource = 'hook' | 'secret' | 'service';

const resources: Record<Resource, Record<string, Operation>> = {
	hook: hook.operations,
	secret: secret.operations,
	service: service.operations,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const returnData: INodeExecutionData[] = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const resource = this.getNodeParameter('resource', itemIndex) as Resource;
		const operation = this.getNodeParameter('operation', itemIndex) as string;
		// Saved workflows can hold any value: an unknown one is reported, not crashed on.
		const operations = Object.hasOwn(resources, resource) ? resources[resource] : {};
		const run = Object.hasOwn(operations, operation) ? operations[operation] : undefined;
		if (!run) {
			throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`, {
				itemIndex,
			});
		}
		try {
			const result = await run.execute.call(this, itemIndex);
			returnData.push(
				...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result), {
					itemData: { item: itemIndex },
				}),
			);
		} catch (error) {
			if (this.continueOnFail()) {
				const { message, description } = error as { message: string; description?: string };
				returnData.push({ json: { error: message, ...(description ? { description } : {}) }, pairedItem: { item: itemIndex } });
				continue;
			}
			throw asNodeError(this.getNode(), error, itemIndex);
		}
	}
	return [returnData];
}
