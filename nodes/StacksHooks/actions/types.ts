import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

/** One operation: its parameters, and what it does for one input item. */
export interface Operation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}
