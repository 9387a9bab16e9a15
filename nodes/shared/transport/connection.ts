/** Where requests go and for which account: read from the Stacks Hooks API credential, in one place. */
import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE, type Network, NETWORKS } from '../constants';

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
}

export async function getConnection(ctx: RequestContext): Promise<Connection> {
	const fields = readCredential(await ctx.getCredentials(CREDENTIAL_TYPE));
	const baseUrl = (fields.baseUrl || NETWORKS[fields.network].baseUrl).replace(/\/+$/, '');
	if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The credential's Base URL "${baseUrl}" is not an http(s) address`,
			{ description: `Leave Base URL empty to use the public service, or set a full address such as ${NETWORKS.testnet.baseUrl}.` },
		);
	}
	return {
		baseUrl,
		network: fields.network,
		consumerSecret: fields.consumerSecret,
		accountKey: `${baseUrl}#${createHash('sha256').update(fields.apiKey).digest('hex').slice(0, 16)}`,
	};
}
