/** The service itself. */
import { type ApiStatus, apiStatusSchema } from '../schemas';
import type { RequestContext } from '../transport/context';
import { apiRequest, type CallOptions } from '../transport/request';

/** The service's status and version, from its base address (the official client's getStatus()). */
export async function getApiStatus(ctx: RequestContext, options: CallOptions = {}): Promise<ApiStatus> {
	return await apiRequest(ctx, { method: 'GET', path: '', schema: apiStatusSchema, ...options });
}
