/** How the trigger reads its options parameters for each delivery. */
import type { INode, IWebhookFunctions } from 'n8n-workflow';

/**
 * An options parameter read per delivery: as the node holds it when it is a plain value (n8n filled in
 * its default when it built the workflow), else through getNodeParameter, which resolves an expression.
 * getNodeParameter also looks the parameter up in the description each time: in a running n8n, more
 * than the rest of reading a delivery (npm run bench, part 1).
 */
export function deliveryOption<T extends string>(ctx: IWebhookFunctions, node: INode, name: string, fallback: T): T {
	const value = node.parameters[name];
	if (typeof value === 'string' && !value.startsWith('=')) return value as T;
	return ctx.getNodeParameter(name, fallback) as T;
}
