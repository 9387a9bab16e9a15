/** The account's consumer secret, which the service sends with every delivery. */
import { currentSecretSchema, secretSchema } from '../schemas';
import type { RequestContext } from '../transport/context';
import { apiRequest, type CallOptions } from '../transport/request';

/** The account's current secret; null when it has none. */
export async function getSecret(ctx: RequestContext, options: CallOptions = {}): Promise<string | null> {
	const { secret } = await apiRequest(ctx, { method: 'GET', path: '/me/secret', schema: currentSecretSchema, ...options });
	return secret;
}

/** Replaces the account's consumer secret (or creates the first one); answers the new one. */
export async function rotateSecret(ctx: RequestContext, options: CallOptions = {}): Promise<string> {
	const { secret } = await apiRequest(ctx, { method: 'POST', path: '/me/secret', schema: secretSchema, ...options });
	return secret;
}

/** Removes the account's consumer secret: deliveries then carry none. */
export async function deleteSecret(ctx: RequestContext, options: CallOptions = {}): Promise<void> {
	await apiRequest(ctx, { method: 'DELETE', path: '/me/secret', ...options });
}
