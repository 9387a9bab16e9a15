import type { INodeProperties } from 'n8n-workflow';

export { listNameProperty } from '../../../shared/watchList/listHook';

export const addressProperty: INodeProperties = {
	displayName: 'Address',
	name: 'address',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. ST1PQHQKV0RJXZFY1DGX8MNSNYVE3VGZJSRTPGZGM',
	description:
		"One Stacks address of the credential's network, or a contract (ADDRESS.contract-name), per item. All items of a run are applied as one edit.",
};
