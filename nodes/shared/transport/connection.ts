/** Where requests go and for which account: read from the Stacks Hooks API credential, in one place. */
import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { API_KEY_HEADER, CREDENTIAL_TYPE, type Network, NETWORKS } from '../constants';

import type { RequestContext } from './context';

/** The credential's fields, typed. Every reader of the credential goes through this. */
export interface CredentialFields {
	apiKey: string;
	network: Network;
	/** As typed, trimmed; empty for the network's public service. */
	baseUrl: string;
	consumerSecret: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

export function readCredential(data: ICredentialDataDecryptedObject): CredentialFields {
	return {
		apiKey: text(data.apiKey),
		network: data.network === 'mainnet' ? 'mainnet' : 'testnet',
		baseUrl: text(data.baseUrl).trim(),
		consumerSecret: text(data.consumerSecret),
	};
}

export interface Connection {
	baseUrl: string;
	network: Network;
	consumerSecret: string;
	/** Identifies the account for pacing without keeping the key itself. */
	accountKey: string;
	/** Set only for requests sent outside any n8n run (see backgroundConnection): the API key header. */
	authHeaders?: Record<string, string>;
}

export async function getConnection(ctx: RequestContext, opts: { withApiKey?: boolean } = {}): Promise<Connection> {
	const fields = readCredential(await ctx.getCredentials(CREDENTIAL_TYPE));
	const baseUrl = (fields.baseUrl || NETWORKS[fields.network].baseUrl).replace(/\/+$/, '');
	if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The credential's 'Base URL' (${baseUrl}) is not an http(s) address`,
			{ description: `Leave 'Base URL' empty to use the public service, or set a full address such as ${NETWORKS.testnet.baseUrl}.` },
		);
	}
	return {
		baseUrl,
		network: fields.network,
		consumerSecret: fields.consumerSecret,
		accountKey: `${baseUrl}#${createHash('sha256').update(fields.apiKey).digest('hex').slice(0, 16)}`,
		...(opts.withApiKey && { authHeaders: { [API_KEY_HEADER]: fields.apiKey } }),
	};
}

/**
 * For requests the trigger sends on its own schedule, outside any n8n run (the health check): n8n 2.x
 * evaluates a credential's `authenticate` expressions in a sandbox that only a run holds ("No bridge
 * acquired for this context"), so these requests carry the API key header themselves.
 */
export async function backgroundConnection(ctx: RequestContext): Promise<Connection> {
	return await getConnection(ctx, { withApiKey: true });
}
