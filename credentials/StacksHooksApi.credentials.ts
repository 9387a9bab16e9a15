import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { API_KEY_HEADER, CREDENTIAL_TYPE, NETWORK_NAMES, NETWORKS } from '../nodes/shared/constants';

/** The public service's address of each network, as an object literal an expression can index. */
const PUBLIC_BASE_URLS = JSON.stringify(Object.fromEntries(NETWORK_NAMES.map((network) => [network, NETWORKS[network].baseUrl])));

/**
 * The account at the event-hook service (Hiro Chainhooks): set up with the API key alone.
 * The consumer secret is account-wide at the service (one value checks deliveries of every
 * hook); the trigger reads it from the service, so the field for it is optional.
 */
export class StacksHooksApi implements ICredentialType {
	name = CREDENTIAL_TYPE;

	displayName = 'Stacks Hooks API';

	icon = { light: 'file:../nodes/icons/stacksHooks.svg', dark: 'file:../nodes/icons/stacksHooks.dark.svg' } as const;

	documentationUrl = 'https://github.com/n8n-nodes-stacks-hooks/n8n-nodes-stacks-hooks#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'The API key of your account, created or copied in the key management area of the service',
		},
		{
			displayName: 'Network',
			name: 'network',
			type: 'options',
			options: NETWORK_NAMES.map((network) => ({ name: NETWORKS[network].name, value: network })).sort((a, b) =>
				a.name.localeCompare(b.name),
			),
			default: 'testnet',
			description: 'The Stacks network whose events the hooks watch. Each network has its own base address and its own hooks.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: `e.g. ${NETWORKS.testnet.baseUrl}`,
			description:
				'Leave empty to use the public service of the selected network. Set it to reach another deployment (staging, a self-hosted or local emulator); with or without a trailing /v1.',
		},
		{
			displayName: 'Consumer Secret',
			name: 'consumerSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Optional: leave empty. The Stacks Hooks Trigger reads the current secret of the account from the service (and creates one when the account has none), and notices a rotation by itself. Fill it in only to pin the secret yourself: deliveries are then checked against it and the trigger never asks the service for it.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				[API_KEY_HEADER]: '={{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			// The same address the nodes use (transport/connection.ts): the Base URL, else the network's public service.
			baseURL: `={{ (($credentials.baseUrl || "").trim() || ${PUBLIC_BASE_URLS}[$credentials.network] || "${NETWORKS.testnet.baseUrl}").replace(/\\/+$/, "") }}`,
			url: '/me/',
			qs: { limit: 1 },
		},
	};
}
