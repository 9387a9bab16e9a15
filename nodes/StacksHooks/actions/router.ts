/**
 * The item loop: each input item runs the chosen operation once; its output
 * items are paired with it. A batch operation (a watch list's edits) runs once
 * for all the items that chose it, each item still getting its own output or
 * error. With "On Error: Continue", a failing item becomes an error item and
 * the next items still run.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Breather } from '../../shared/breather';
import { asNodeError } from '../../shared/transport/errors';

import * as hook from './hook';
import * as secret from './secret';
import * as service from './service';
import * as watchList from './watchList';
import type { BatchResult, Operation } from './operation';

/** Resource values, like operation values, are part of the node's public interface. */
export type Resource = 'hook' | 'secret' | 'service' | 'watchList';

const resources: Record<Resource, Record<string, Operation>> = {
	hook: hook.operations,
	secret: secret.operations,
	service: service.operations,
	watchList: watchList.operations,
};

function operationOf(ctx: IExecuteFunctions, itemIndex: number): Operation {
	const resource = ctx.getNodeParameter('resource', itemIndex) as Resource;
	const operation = ctx.getNodeParameter('operation', itemIndex) as string;
	// Saved workflows can hold any value: an unknown one is reported, not crashed on.
	const operations = Object.hasOwn(resources, resource) ? resources[resource] : {};
	const run = Object.hasOwn(operations, operation) ? operations[operation] : undefined;
	if (!run) throw new NodeOperationError(ctx.getNode(), `The operation "${operation}" of "${resource}" is not supported`, { itemIndex });
	return run;
}

/** Runs each batch operation once for all the items that chose it; what it made of each item, by item. */
async function runBatches(ctx: IExecuteFunctions, chosen: Operation[]): Promise<BatchResult> {
	const results: BatchResult = new Map();
	for (const run of new Set(chosen)) {
		if (!('executeBatch' in run)) continue;
		const itemIndexes = chosen.flatMap((candidate, itemIndex) => (candidate === run ? [itemIndex] : []));
		try {
			for (const [itemIndex, result] of await run.executeBatch.call(ctx, itemIndexes)) results.set(itemIndex, result);
		} catch (error) {
			// The batch as a whole failed (the service could not be asked): every item of it fails with that.
			for (const itemIndex of itemIndexes) results.set(itemIndex, error as Error);
		}
	}
	return results;
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const returnData: INodeExecutionData[] = [];
	const breather = new Breather();
	const chosen: Operation[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		await breather.breathe();
		chosen.push(operationOf(this, itemIndex));
	}
	const batched = await runBatches(this, chosen);

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		await breather.breathe();
		const run = chosen[itemIndex];
		try {
			const batchResult = batched.get(itemIndex);
			if (batchResult instanceof Error) throw batchResult;
			const result = 'executeBatch' in run ? (batchResult ?? {}) : await run.execute.call(this, itemIndex);
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
