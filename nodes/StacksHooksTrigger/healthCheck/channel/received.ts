/**
 * What reached the workflow: each delivery the n8n process took (the main in regular mode, a webhook
 * process in queue mode), as the blocks it applied, when it first and last came, and whether it carried
 * rollbacks (a reorganisation). The gap plan (../planning/gapPlan.ts) holds these against what the service counted.
 *
 * Kept in memory first: n8n does not save what webhook() writes to the static data of a delivery it
 * answers after queueing (or running) the execution, which is every accepted delivery (measured on
 * n8n 2.41.3: its live-webhooks.js saves the workflow's static data in the answer's callback, and still
 * nothing a delivery wrote reached the database). At each check the trigger's own webhook is called
 * (ownWebhook.ts), and the process that answers writes what it took into the static data under its own
 * incarnation; that answer is saved, because webhook() answers it itself and starts no execution. The
 * answer is the union of every incarnation's record, one entry per distinct delivery: a delivery sent
 * again (a retry, an answer lost on the way back) is the same entry wherever it landed. What a killed
 * process had not yet written is lost; that only makes the plan replay more.
 *
 * A delivery that comes again and again in a row is one the workflow keeps failing on (Respond: When
 * the Workflow Finishes answers a failed run 500): reported as `repeating`.
 */
import { hash, randomUUID } from 'crypto';
import type { IDataObject, INode, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { Delivery } from '../../../shared/delivery';
import { nodeKey, Slot } from '../../nodeMemory';
import { runningGapState } from './checkState';
import type { Received, Repeating, Taken } from '../planning/gapState';

/** One n8n process since it started: two processes (or two lives of one) never write into one record. */
const INCARNATION = randomUUID();

/** Whether the process that answered a check is this one (the main that runs the check, when the check's address reaches it). */
export const answeredHere = (received: Pick<Received, 'by'>) => received.by === INCARNATION;

/** The most deliveries one process keeps per node; the oldest go first (the plan then replays more, never less). */
const MAX_ENTRIES = 5_000;
/** Records of processes not heard of for this long are dropped from the static data. */
const FORGET_AFTER_MS = 7 * 24 * 3600_000;
/**
 * A record's delivery taken again and again counts only if the process answered this long ago at the most: every live
 * process answers each check's calls within seconds of the others, so a record older than this is of a process that
 * missed the check (heard at the next), or that stopped.
 */
const REPEATING_HEARD_MS = 30_000;

/** One process's record, as kept in `staticData.received[incarnation]`. */
interface ProcessRecord {
	taken: Taken[];
	at: number;
	repeating?: Repeating;
}

interface Memory {
	taken: Map<string, Taken>;
	lastKey?: string;
	repeating?: Repeating;
	/** When the last delivery came (Date.now()). */
	lastAt?: number;
}

const memory = new Slot<Memory>('deliveries taken');

const short = (hash: string) => hash.replace(/^0x/, '').slice(0, 16);

function describe(delivery: Delivery): { key: string; applied: Array<[number, string]>; first?: Omit<Repeating, 'times' | 'since'> } {
	const { apply, rollback } = delivery.event;
	const hashes = (blocks: typeof apply) => blocks.map((block) => block.block_identifier.hash).join(',');
	const key = hash('sha256', `${delivery.chainhook.uuid}|${hashes(rollback)}|${hashes(apply)}`, 'hex').slice(0, 24);
	const applied = apply.map((block): [number, string] => [block.block_identifier.index, short(block.block_identifier.hash)]);
	const [block, direction] = apply.length > 0 ? [apply[0], 'apply' as const] : [rollback[0], 'rollback' as const];
	return { key, applied, first: block && { height: block.block_identifier.index, hash: block.block_identifier.hash, direction } };
}

/**
 * The check's replays: as this process's own check lists them, when it runs the check (regular mode: the main takes
 * the deliveries), else as the static data lists them for this request (kept there by the check through ownWebhook.ts).
 */
interface CheckMarks {
	replays?: Array<{ from: number; to: number; at: number }>;
	windows?: Array<{ replays?: Array<{ from: number; to: number; at: number }> }>;
}

/**
 * Where this process took a production delivery of each node: the local address and port of that connection (its own
 * HTTP server, whatever proxy is in front) and the path n8n served it at. In memory: learned again after a restart at
 * the first delivery.
 */
const ownUrls = new Slot<string>('where deliveries came in');

/** Notes where this process took an authentic production delivery of the node. */
function noteOwnUrl(ctx: IWebhookFunctions): void {
	const request = ctx.getRequestObject();
	const socket = request.socket as (typeof request.socket & { encrypted?: boolean }) | undefined;
	const port = socket?.localPort;
	const address = socket?.localAddress?.replace(/^::ffff:(?=\d+\.)/, '');
	const path = String(request.originalUrl ?? request.url ?? '').split('?')[0];
	if (!port || !address || !path.startsWith('/')) return;
	ownUrls.set(nodeKey(ctx), `${socket.encrypted ? 'https' : 'http'}://${address.includes(':') ? `[${address}]` : address}:${port}${path}`);
}

/** Where this process last took a production delivery of the node; undefined before the first since it started. */
export function ownUrlOf(ctx: ITriggerFunctions): string | undefined {
	return ownUrls.get(nodeKey(ctx));
}

/**
 * Notes an accepted production delivery, and where it came in: no request, no I/O. `node`: ctx.getNode(), when the
 * caller holds it.
 */
export function noteDelivery(ctx: IWebhookFunctions, delivery: Delivery, node?: INode): void {
	noteOwnUrl(ctx);
	const id = nodeKey(ctx, node);
	let seen = memory.get(id);
	if (!seen) memory.set(id, (seen = { taken: new Map() }));
	const { key, applied, first } = describe(delivery);
	seen.lastAt = Date.now();
	if (key === seen.lastKey) {
		if (first) seen.repeating = seen.repeating ? { ...seen.repeating, times: seen.repeating.times + 1 } : { ...first, times: 2, since: Date.now() };
	} else {
		seen.lastKey = key;
		seen.repeating = undefined;
	}
	// A delivery that only rolls back is kept too: a block it undid cannot be what a replay brings (../planning/windows.ts).
	if (applied.length === 0 && delivery.event.rollback.length === 0) return;
	const marks = (runningGapState(id) ?? ctx.getWorkflowStaticData('node').gaps ?? {}) as CheckMarks;
	const single = applied.length === 1 && delivery.event.rollback.length === 0 ? applied[0][0] : undefined;
	const listed = [...(marks.replays ?? []), ...(marks.windows ?? []).flatMap((window) => window.replays ?? [])];
	const replays = single === undefined ? [] : listed.filter((replay) => replay.from <= single && single <= replay.to).map((replay) => replay.at);
	const known = seen.taken.get(key);
	const undone = delivery.event.rollback.map((block): [number, string] => [block.block_identifier.index, short(block.block_identifier.hash)]);
	const taken: Taken = known ?? { k: key, a: applied, ...(undone.length > 0 && { b: undone }) };
	if (replays.length > 0) taken.p = [...new Set([...(taken.p ?? []), ...replays])];
	// Most recent last, so that the oldest are the first to go.
	seen.taken.delete(key);
	seen.taken.set(key, taken);
	if (seen.taken.size > MAX_ENTRIES) seen.taken.delete(seen.taken.keys().next().value as string);
}

function recordOf(seen: Memory, taken: Taken[], now: number): ProcessRecord {
	return { taken, at: now, ...(seen.repeating && { repeating: seen.repeating }) };
}

/** How long since this process took its last delivery, when it took one. */
const quietOf = (seen: Memory | undefined, now: number) => (seen?.lastAt !== undefined ? { quietMs: now - seen.lastAt } : {});

/** The highest height a delivery applied or rolled back. */
export const topOf = (taken: Pick<Taken, 'a' | 'b'>) => Math.max(...taken.a.map(([height]) => height), ...(taken.b ?? []).map(([height]) => height));

/** One entry per distinct delivery, with every replay it came under. */
export function union(records: Taken[][]): Taken[] {
	const byKey = new Map<string, Taken>();
	for (const record of records) {
		for (const taken of record) {
			const known = byKey.get(taken.k);
			if (!known) byKey.set(taken.k, taken);
			else {
				const p = [...new Set([...(known.p ?? []), ...(taken.p ?? [])])];
				byKey.set(taken.k, { ...known, ...(p.length > 0 && { p }) });
			}
		}
	}
	return [...byKey.values()];
}

function recordsIn(data: IDataObject): Record<string, ProcessRecord> {
	const value = data.received;
	return value && typeof value === 'object' && !Array.isArray(value) ? (value as unknown as Record<string, ProcessRecord>) : {};
}

/**
 * The union of every process's record. A delivery taken again and again (`repeating`) is told only from records heard
 * of within REPEATING_HEARD_MS of `now`: one of a process that stopped (killed, restarted: its record stays for days)
 * repeats nothing any more, and would hold the check's replays behind a delivery no process is taking.
 */
function unionOf(records: Record<string, ProcessRecord>, now: number): Received {
	let repeating: Repeating | undefined;
	for (const record of Object.values(records)) {
		if (record.repeating && now - record.at <= REPEATING_HEARD_MS && (!repeating || record.repeating.times > repeating.times)) repeating = record.repeating;
	}
	return { taken: union(Object.values(records).map((record) => record.taken)), ...(repeating && { repeating }) };
}

/**
 * Answering a check: writes what this process took into the static data, leaving out deliveries that
 * applied nothing above `floor` (the plan no longer needs them), and answers the union over every process.
 */
export function keepReceived(ctx: IWebhookFunctions, floor: number, now = Date.now()): Received {
	const data = ctx.getWorkflowStaticData('node');
	const records: Record<string, ProcessRecord> = {};
	for (const [incarnation, record] of Object.entries(recordsIn(data))) {
		if (incarnation !== INCARNATION && now - record.at <= FORGET_AFTER_MS) records[incarnation] = { ...record, taken: record.taken.filter((taken) => topOf(taken) > floor) };
	}
	const seen = memory.get(nodeKey(ctx));
	if (seen) {
		for (const [key, taken] of seen.taken) if (topOf(taken) <= floor) seen.taken.delete(key);
		records[INCARNATION] = recordOf(seen, [...seen.taken.values()], now);
	}
	data.received = records as unknown as IDataObject;
	return { ...unionOf(records, now), by: INCARNATION, ...quietOf(seen, now) };
}

/**
 * For a check that cannot reach the trigger's webhook: the records as n8n loaded them with the workflow, with this
 * process's own in place of what was kept of it, less what applied nothing above `floor` (forgotten here too, as the
 * webhook's answer would). Complete where this process takes every delivery (regular mode) since it started; undefined
 * when it took none, as it cannot know then whether another process takes them (a queue-mode main).
 */
export function localReceived(ctx: ITriggerFunctions, floor: number): Received | undefined {
	const seen = memory.get(nodeKey(ctx));
	if (!seen) return undefined;
	const now = Date.now();
	for (const [key, taken] of seen.taken) if (topOf(taken) <= floor) seen.taken.delete(key);
	return { ...unionOf({ ...recordsIn(ctx.getWorkflowStaticData('node')), [INCARNATION]: recordOf(seen, [...seen.taken.values()], now) }, now), ...quietOf(seen, now) };
}

/**
 * What every process had taken as the static data held it when n8n loaded the workflow for this trigger (its start, or
 * the activation): what the last check that reached the trigger's webhook kept. Only for where a stopped hook's gap began
 * (../planning/gapPlan.ts): it is not what n8n took since, so no window is judged on it.
 */
export function keptTaken(ctx: ITriggerFunctions): Taken[] {
	return union(Object.values(recordsIn(ctx.getWorkflowStaticData('node'))).map((record) => (Array.isArray(record.taken) ? record.taken : [])));
}
