'use strict';
/**
 * The floor of part 1 of `npm run bench`: the cheapest community trigger n8n 2.41 allows. Plain
 * JS with no dependencies, so n8n loads nothing for it but this file. Whatever a delivery to it
 * costs is what n8n itself charges any community trigger holding a credential: the Stacks Hooks Trigger is measured
 * against it. Like for like with the trigger: a constant compared with one header, the same
 * per-transaction items, answered by n8n after the execution is queued (or, in order, once it has
 * run); no parameter read, no checks of the body. It carries the trigger's credential (declared, and
 * attached in the bench's workflows, never loaded), as any trigger that registers its hook at the
 * service must: n8n checks the credentials of a workflow's nodes before every execution (two
 * SELECTs of credentials_entity, profiled in issue 26), and a floor without one left that charge
 * on the trigger's side of rows …f.
 *
 * The secret is payloads.ts's SECRET, and the credential type the trigger's, written out:
 * floor/package.ts refuses to pack this file when either differs.
 */
const SECRET = 'b3e7c0deb3e7c0deb3e7c0deb3e7c0deb3e7c0deb3e7c0deb3e7c0deb3e7c0de';
/** The credential type the Stacks Hooks Trigger declares (nodes/shared/constants.ts). */
const CREDENTIAL_TYPE = 'stacksHooksApi';

/** The trigger's default output, written out plainly: one item per transaction, rollbacks first, with its id. */
function transactionItems(d) {
	const blocks = [...(d.event.rollback || []).map((b) => ['rollback', b]), ...(d.event.apply || []).map((b) => ['apply', b])];
	const out = [];
	for (const [direction, b] of blocks) {
		for (const tx of b.transactions) {
			const m = tx.metadata || {};
			const blockHash = b.block_identifier.hash;
			const txHash = tx.transaction_identifier.hash;
			out.push({
				json: {
					transactionId: `${blockHash}:${txHash}`, direction, hookUuid: d.chainhook.uuid, hookName: d.chainhook.name ?? null, network: d.event.network,
					blockHeight: b.block_identifier.index, blockHash, blockTimestamp: b.timestamp ?? null,
					txHash, txType: m.type ?? null, txStatus: m.status ?? null, sender: m.sender_address ?? null, fee: m.fee_rate ?? null,
					nonce: m.nonce ?? null, position: m.position ? m.position.index : null, operations: tx.operations, metadata: m,
				},
			});
		}
	}
	return out;
}

/**
 * `responseMode`: 'onReceived' answers like the Stacks Hooks Trigger's default (n8n sends the returned
 * webhookResponse once the execution is saved or queued); 'lastNode' like its in-order mode (n8n answers,
 * with no body, once the workflow has run). Each is a node type of its own, so no expression is evaluated.
 */
function floorType(name, displayName, responseMode) {
	return class {
		constructor() {
			this.description = {
				displayName,
				name,
				group: ['trigger'],
				// Not 1, like the Stacks Hooks Trigger: for a webhook node of typeVersion 1, n8n evaluates a
				// legacy expression on every request (see nodes/StacksHooksTrigger/StacksHooksTrigger.node.ts).
				version: 1.1,
				description: 'Benchmark floor: the trigger\'s per-transaction items of a delivery carrying the right secret',
				defaults: { name: displayName },
				inputs: [],
				outputs: ['main'],
				// The Stacks package's credential type (installed beside this package in every bench n8n).
				credentials: [{ name: CREDENTIAL_TYPE, required: true }],
				webhooks: [{ name: 'default', httpMethod: 'POST', responseMode, responseData: responseMode === 'lastNode' ? 'noData' : '', path: 'webhook' }],
				properties: [],
			};
		}

		async webhook() {
			if (this.getHeaderData()['x-hook-consumer-secret'] !== SECRET) {
				this.getResponseObject().status(401).json({ error: 'Unauthorized' });
				return { noWebhookResponse: true };
			}
			const items = transactionItems(this.getBodyData());
			return { webhookResponse: { received: true, items: items.length }, workflowData: [items] };
		}
	};
}

const FloorTrigger = floorType('floorTrigger', 'Floor Trigger', 'onReceived');

// n8n loads the class named like its file: the in-order floor is FloorTriggerInOrder.node.js, made with floorType.
module.exports = { FloorTrigger, floorType };
