import type { INodeProperties } from 'n8n-workflow';

export const listNameProperty: INodeProperties = {
	displayName: 'Watch List',
	name: 'listName',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. deposits',
	description:
		'The name of the list, as a Stacks Hooks Trigger watching it names it. The list is kept at the service, as a hook of its own that never delivers.',
};

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
