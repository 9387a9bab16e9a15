/**
 * The service refusing a hook for its size: too large a body (413), or more filters than it takes (a
 * 400 naming `filters.events`). How large a definition may be is not public, and a watch list meets
 * the limit first (one filter per address and kind). A list's hook then selects the kinds for any
 * address and the trigger matches the list (listHook.ts); where that is refused too (balance changes
 * still take one filter per address), the error says what the trigger sent, how the list made it that
 * large, and what to change, beside the service's own words.
 */
import type { INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Definition } from '../schemas';
import { principalsOf } from './kinds';

/** Whether the service refused a definition for its size. */
export function refusedForSize(error: unknown): error is NodeApiError {
	if (!(error instanceof NodeApiError)) return false;
	if (error.httpCode === '413') return true;
	return error.httpCode === '400' && /filters\.events/.test(`${error.message} ${error.description ?? ''}`);
}

/**
 * The error to raise for a refused registration of `definition`, when its size is why; undefined otherwise.
 * `perAddress`: the filter count of one filter per address and kind, when that was refused first.
 */
export function sizeRefusal(node: INode, error: unknown, definition: Definition, perAddress?: number): NodeOperationError | undefined {
	if (!refusedForSize(error)) return undefined;
	const filters = definition.filters.events.length;
	const kilobytes = Math.ceil(Buffer.byteLength(JSON.stringify(definition)) / 1024);
	const addresses = principalsOf(definition.filters.events as Array<Record<string, unknown>>).size;
	const answered = `It answered: ${error.message}${error.description ? `. ${error.description}` : ''}.`;
	if (perAddress !== undefined) {
		return new NodeOperationError(node, `The service refused a hook of ${filters} filters (${kilobytes} KB) as too large`, {
			description: `${answered} The trigger registered nothing. One filter per address and kind came to ${perAddress} filters, refused first; matching the list in n8n still takes one Balance Changes filter per address (no filter selects every balance change), ${filters} in all. Watch the addresses' transfers, mints and burns instead of their balance changes, or split the list among several triggers.`,
		});
	}
	const per = addresses > 0 ? ` for ${addresses} addresses (${Math.round((filters / addresses) * 10) / 10} per address: one per kind under Watch For, three for mints and for burns)` : '';
	return new NodeOperationError(node, `The service refused a hook of ${filters} filters (${kilobytes} KB) as too large`, {
		description: `${answered} The trigger registered nothing: its hook would hold ${filters} filters${per}. Watch fewer kinds, or split the list among several triggers, each below that size.`,
	});
}
