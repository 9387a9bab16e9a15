'use strict';
/**
 * The floor of part 1 of `npm run bench`: the cheapest community trigger n8n 2.41 allows. Plain
 * JS with no dependencies, so n8n loads nothing for it but this file. Whatever a delivery to it
 * costs is what n8n itself charges any community trigger: the Stacks Hooks Trigger is measured
 * against it. Kept as close to nothing as a trigger can be: a constant compared with one header,
 * one empty item, no credential, no parameter read.
 *
 * The secret is payloads.ts's SECRET, written out: floor/package.ts refuses to pack this file
 * when the two differ.
 */
const SECRET = 'b3e7c0deb3e7c0deb3e7c0deb3e7c0deb3e7c0deb3e7c0deb3e7c0deb3e7c0de';

class FloorTrigger {
	constructor() {
		this.description = {
			displayName: 'Floor Trigger',
			name: 'floorTrigger',
			group: ['trigger'],
			// Not 1, like the Stacks Hooks Trigger: for a webhook node of typeVersion 1, n8n evaluates a
			// legacy expression on every request (see nodes/StacksHooksTrigger/StacksHooksTrigger.node.ts).
			version: 1.1,
			description: 'Benchmark floor: one empty item per delivery carrying the right secret',
			defaults: { name: 'Floor Trigger' },
			inputs: [],
			outputs: ['main'],
			webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
			properties: [],
		};
	}

	async webhook() {
		// Answered here, as the Stacks Hooks Trigger does, so both leave n8n the same work after webhook().
		const res = this.getResponseObject();
		if (this.getHeaderData()['x-hook-consumer-secret'] !== SECRET) {
			res.status(401).json({ error: 'Unauthorized' });
			return { noWebhookResponse: true };
		}
		res.status(200).json({ received: true, items: 1 });
		return { noWebhookResponse: true, workflowData: [[{ json: {} }]] };
	}
}

module.exports = { FloorTrigger };
