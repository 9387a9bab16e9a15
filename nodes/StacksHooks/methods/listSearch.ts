import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { HooksClient } from '../../shared/api/client';
import { MAX_PAGE_SIZE } from '../../shared/constants';

/** The account's hooks for the Hook picker, a page at a time, filtered by name or UUID. */
export async function searchHooks(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const offset = Number(paginationToken) || 0;
	const page = await (await HooksClient.connect(this)).page(offset, MAX_PAGE_SIZE);
	const needle = filter?.trim().toLowerCase() ?? '';
	const results = page.results
		.filter(
			(hook) => !needle || hook.definition.name.toLowerCase().includes(needle) || hook.uuid.toLowerCase().includes(needle),
		)
		.map((hook) => ({
			name: `${hook.definition.name} (${hook.status.enabled ? 'enabled' : 'disabled'}, ${hook.status.status})`,
			value: hook.uuid,
		}));
	const next = offset + page.results.length;
	return { results, paginationToken: page.results.length > 0 && next < page.total ? String(next) : undefined };
}
