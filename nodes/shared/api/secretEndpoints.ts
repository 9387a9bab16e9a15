/** The account's consumer secret, which the service sends with every delivery. */
import { secretSchema } from '../schemas';
import type { RequestContext } from '../transport/context';
import { apiRequest, type CallOptions } from '../transport/request';

/** Replaces the account's consumer secret; answers the new one. */
export async function rotateSecret(ctx: RequestContext, options: CallOptions = {}): Promise<string> {
	const { secret } = await apiRequest(ctx, { method: 'POST', path: '/me/secret', schema: secretSchema, ...options });
	return secret;
}
