/**
 * A list of principals a user typed or sent (one per line, or one per item): each checked to be a
 * principal of the credential's network (../principal.ts), duplicates dropped, the order kept. A list
 * with a bad entry is refused whole, with an error naming each bad entry where the user typed it.
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Network } from '../constants';
import { principalProblem } from '../principal';

const capitalized = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;

/** How many bad entries an error names one by one. */
const NAMED = 5;

export interface ListEntry {
	/** As typed, trimmed. */
	principal: string;
	/** Where the user finds it: "line 3", "item 2". */
	where: string;
}

/** The entries of a text, one per line; blank lines and lines starting with # are left out. */
export function linesOf(text: string): ListEntry[] {
	const entries: ListEntry[] = [];
	const lines = text.split(/\r?\n/);
	for (let i = 0; i < lines.length; i++) {
		const principal = lines[i].trim();
		if (principal !== '' && !principal.startsWith('#')) entries.push({ principal, where: `line ${i + 1}` });
	}
	return entries;
}

/** The distinct principals of `entries`, in order; throws naming every entry that is not a principal of `network`. */
export function checkedPrincipals(node: INode, entries: readonly ListEntry[], network: Network, what: string): string[] {
	const seen = new Set<string>();
	const bad: string[] = [];
	let badCount = 0;
	for (const { principal, where } of entries) {
		if (seen.has(principal)) continue;
		const problem = principalProblem(principal, network);
		if (problem === undefined) seen.add(principal);
		else if (++badCount <= NAMED) bad.push(`${where}: "${principal}" ${problem}`);
	}
	if (badCount > 0) {
		const more = badCount > NAMED ? `; and ${badCount - NAMED} more` : '';
		const message =
			entries.length === 1
				? `${capitalized(what)} is not a ${network} Stacks principal`
				: badCount === 1
					? `An entry of ${what} is not a ${network} Stacks principal`
					: `${badCount} entries of ${what} are not ${network} Stacks principals`;
		throw new NodeOperationError(node, message, {
			description: `${bad.join('; ')}${more}. Each entry must be one Stacks address (${network === 'mainnet' ? 'SP… or SM…' : 'ST… or SN…'}) or contract (ADDRESS.contract-name).`,
		});
	}
	if (seen.size === 0) {
		throw new NodeOperationError(node, `${capitalized(what)} is empty`, { description: 'Give at least one Stacks address or contract, one per line.' });
	}
	return [...seen];
}
