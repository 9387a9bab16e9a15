/** Execution steps several hook operations share: reading the chosen hook, and switching hooks on or off. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { HooksClient } from '../../../shared/api/client';
import { validate } from '../../../shared/definition';
import { uuidSchema } from '../../../shared/identifiers';
import { bulkFiltersSchema } from '../../../shared/schemas';

/** The chosen hook's UUID, refused before any request when it is not one. */
export function getHookId(ctx: IExecuteFunctions, itemIndex: number): string {
	const value = ctx.getNodeParameter('hookId', itemIndex, '', { extractValue: true });
	const id = typeof value === 'string' ? value.trim() : String(value ?? '');
	if (!uuidSchema.safeParse(id).success) {
		throw new NodeOperationError(
			ctx.getNode(),
			id ? `"${id}" is not a hook ID: hook IDs are UUIDs` : 'No hook chosen',
			{
				description: 'Pick the hook from the list, or give its UUID (e.g. from the output of Get Many).',
				itemIndex,
			},
		);
	}
	return id;
}

export async function setEnabled(ctx: IExecuteFunctions, itemIndex: number, enabled: boolean): Promise<IDataObject> {
	const uuid = getHookId(ctx, itemIndex);
	await (await HooksClient.connect(ctx, { itemIndex })).setEnabled(uuid, enabled);
	return { uuid, enabled };
}

export async function bulkSetEnabled(ctx: IExecuteFunctions, itemIndex: number, enabled: boolean): Promise<IDataObject> {
	const raw = ctx.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const filters: IDataObject = {};
	if (typeof raw.webhookUrl === 'string' && raw.webhookUrl.trim()) filters.webhook_url = raw.webhookUrl.trim();
	const uuids = String(raw.uuids ?? '')
		.split(/[\s,]+/)
		.filter(Boolean);
	if (uuids.length) filters.uuids = [...new Set(uuids)];
	if (Array.isArray(raw.statuses) && raw.statuses.length) filters.statuses = raw.statuses;
	const valid = validate(ctx.getNode(), bulkFiltersSchema, filters, 'filters', itemIndex) as IDataObject;
	const updated = await (await HooksClient.connect(ctx, { itemIndex })).setManyEnabled(enabled, valid);
	return { enabled, updated_uuids: updated, updated_count: updated.length };
}
