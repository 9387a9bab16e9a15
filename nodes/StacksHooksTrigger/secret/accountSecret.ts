/**
 * The consumer secret deliveries are checked against: where it comes from,
 * what is kept of it, and when it is read again.
 *
 * - Source: the credential's Consumer Secret when it is filled in (it wins);
 *   else the account's current secret, asked from the service (GET /me/secret),
 *   created (POST /me/secret) only when the account has none. An existing
 *   secret is never rotated: other receivers of the account keep working.
 *   The client reads it (../../shared/api/client.ts, deliverySecret).
 * - Kept: only its SHA-256, in the node's static data (saved by n8n with the
 *   workflow, beside the hook's UUID), written at activation. A delivery that
 *   matches it is accepted without loading the credential or asking the service.
 *   The process also remembers the secret itself in memory once a delivery or a
 *   read has shown it (consumerSecret.ts), to compare instead of hashing.
 * - Read again: a delivery that does not match may mean the secret was rotated
 *   at the service (or the credential's was changed), so the trigger reads it
 *   again — at most once a minute per trigger node, whatever the traffic, so
 *   wrong secrets cost the account at most one request a minute. Deliveries
 *   that arrive while it is being read wait for the answer.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';

import { HooksClient } from '../../shared/api/client';
import { nodeKey, Slot } from '../nodeMemory';
import { keptDigest, type PresentedSecrets } from './consumerSecret';

/** The least time between two reads of the secret caused by deliveries, per trigger node, from one's answer to the next. */
export const REFRESH_INTERVAL_MS = 60_000;

/** `staticData.consumerSecret`. */
interface Kept {
	sha256?: string;
	/** When the last read a delivery caused was answered (ms since the epoch); shared by n8n's processes through the database. */
	refreshedAt?: number;
}

function keptIn(data: IDataObject): Kept {
	const value = data.consumerSecret as Kept | undefined;
	return value && typeof value === 'object' ? value : {};
}

/** On activation: keeps the digest of the secret deliveries will carry. */
export async function keepSecret(ctx: IHookFunctions, service: HooksClient): Promise<void> {
	const data = ctx.getWorkflowStaticData('node');
	data.consumerSecret = { ...keptIn(data), sha256: keptDigest(await service.deliverySecret()) };
}

/** The last read caused by a delivery, in this process, per trigger node. */
interface Read {
	/** When it began, then when its answer came. */
	at: number;
	/** The kept digest the read replaced: its result only stands in for a static data that still holds it. */
	replaced: string | undefined;
	/** The digest it found; a promise while the read runs; undefined when it failed. */
	sha256: Promise<string | undefined> | string | undefined;
}

const reads = new Slot<Read>('consumer secret read again');

/** Whether one of the presented secrets is the one deliveries must carry. */
export async function isAuthentic(ctx: IWebhookFunctions, presented: PresentedSecrets): Promise<boolean> {
	const data = ctx.getWorkflowStaticData('node');
	const kept = keptIn(data);
	if (kept.sha256 && presented.match(kept.sha256)) return true;

	const key = nodeKey(ctx);
	const last = reads.get(key);
	// A read made since this request's copy of the static data was loaded (n8n saves it after the answer).
	if (last && last.replaced === kept.sha256) {
		const found = await last.sha256;
		if (found && presented.match(found)) return true;
	}
	const now = Date.now();
	if (now - Math.max(last?.at ?? 0, kept.refreshedAt ?? 0) < REFRESH_INTERVAL_MS) return false;

	const read: Read = { at: now, replaced: kept.sha256, sha256: readAgain(ctx, kept.sha256) };
	reads.set(key, read);
	const found = await read.sha256;
	// The minute runs from the answer, which came after the service took the request: the next read
	// reaches the service a minute after this one at least, however long this one took on its way.
	const answeredAt = Date.now();
	read.at = answeredAt;
	read.sha256 = found;
	data.consumerSecret = { sha256: found ?? kept.sha256, refreshedAt: answeredAt };
	return found !== undefined && presented.match(found);
}

async function readAgain(ctx: IWebhookFunctions, before: string | undefined): Promise<string | undefined> {
	try {
		const service = await HooksClient.connect(ctx);
		const secret = await service.deliverySecret();
		const found = keptDigest(secret);
		if (before !== undefined && found !== before) {
			ctx.logger.info('Stacks Hooks Trigger: the consumer secret changed; deliveries are now checked against the new one', {
				workflowId: ctx.getWorkflow().id,
				node: ctx.getNode().name,
			});
		}
		return found;
	} catch (error) {
		ctx.logger.warn(`Stacks Hooks Trigger: could not read the consumer secret again: ${(error as Error).message}`, {
			workflowId: ctx.getWorkflow().id,
			node: ctx.getNode().name,
		});
		return undefined;
	}
}
