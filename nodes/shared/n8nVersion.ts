/**
 * The oldest n8n the nodes run on, checked when n8n loads them. Imported for this effect by both
 * node files, before their descriptions use NodeConnectionTypes: on an older n8n, loading stops
 * with a message that says what to do, instead of "Cannot read properties of undefined (reading
 * 'Main')".
 */
import { NodeConnectionTypes } from 'n8n-workflow';

/** n8n 1.85 ships n8n-workflow 1.83, the first with NodeConnectionTypes. */
export const OLDEST_N8N = '1.85.0';

if (typeof NodeConnectionTypes?.Main !== 'string') {
	throw new Error(
		`n8n-nodes-stacks-hooks needs n8n ${OLDEST_N8N} or newer: this n8n's n8n-workflow has no NodeConnectionTypes. ` +
			`Update n8n to ${OLDEST_N8N} or newer, then restart it.`,
	);
}
