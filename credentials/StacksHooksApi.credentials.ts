import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/**
 * The account at the event-hook service (Hiro Chainhooks). The consumer secret is
 * account-wide at the service: one value checks deliveries of every hook.
 */
export class StacksHooksApi implements ICredentialType {
	name = 'stacksHooksApi';

	displayName = 'Stacks Hooks API';

	icon = { light: 'file:stacksHooks.svg', dark: 'file:stacksHooks.dark.svg' } as const;

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
			options: [
				{ name: 'Testnet', value: 'testnet' },
				{ name: 'Mainnet', value: 'mainnet' },
			],
			default: 'testnet',
			description: 'The Stacks network whose events the hooks watch. Each network has its own base address and its own hooks.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			placeholder: 'https://api.testnet.hiro.so/chainhooks/v1',
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
				'The secret the service sends with every delivery, so the Stacks Hooks Trigger can reject requests that do not come from it. Get it with the Stacks Hooks node: Secret → Rotate. Required by the trigger.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'x-api-key': '={{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{ ($credentials.baseUrl || ($credentials.network === "mainnet" ? "https://api.mainnet.hiro.so/chainhooks/v1" : "https://api.testnet.hiro.so/chainhooks/v1")).replace(/\\/+$/, "") }}',
			url: '/me/',
			qs: { limit: 1 },
		},
	};
}
