/** What an operation is, and the Operation parameter built from a resource's operations. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** What a batch operation made of each of its items: the output, or the error that item alone failed with. */
export type BatchResult = Map<number, IDataObject | IDataObject[] | Error>;

/**
 * One operation: its parameters, and what it does for one input item, or (`executeBatch`) for all the
 * items of a run at once, when one request for all of them is what keeps a run within the rate limit.
 */
export type Operation =
	| { description: INodeProperties[]; execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]> }
	| { description: INodeProperties[]; executeBatch(this: IExecuteFunctions, itemIndexes: number[]): Promise<BatchResult> };

/** How an operation is listed in the Operation parameter. */
export interface OperationText {
	name: string;
	description: string;
	action: string;
}

/**
 * The Operation parameter of `resource`, listing exactly the operations in
 * `texts` (typed as a Record of the resource's operation values, so a missing
 * or extra one is a compile error), sorted by name as n8n lists options.
 */
export function operationProperty<K extends string>(
	resource: string,
	texts: Record<K, OperationText>,
	defaultOperation: K,
): INodeProperties {
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options: (Object.keys(texts) as K[])
			.map((value) => ({ ...texts[value], value }))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultOperation,
	};
}
