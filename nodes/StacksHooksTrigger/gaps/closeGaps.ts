/**
 * The gap step of each health check (hook/healthCheck.ts): after the hook was checked and, if it had
 * stopped, brought back, learn what n8n took (ownWebhook.ts), decide which heights may be missing
 * (plan.ts) and have the service replay them into the hook: one evaluation per height, paced by the
 * transport within the account's rate limit, a bounded number per check.
 *
 * Bounds: at most REPLAY_PER_CHECK heights per check, the next check coming soon while some are left;
 * and at most the node's Catch-Up Limit in all: of a larger gap the newest heights are replayed and the
 * older ones are reported (alerts.ts), to be backfilled.
 */
import type { ITriggerFunctions } from 'n8n-workflow';

import { evaluateHook } from '../../shared/api/hookEndpoints';
import { getSecret } from '../../shared/api/secretEndpoints';
import type { Hook } from '../../shared/schemas';
import type { Connection } from '../../shared/transport/connection';
import { isNotFound } from '../../shared/transport/errors';
import { pacerFor } from '../../shared/transport/pacing';
import { logHealed, stored } from '../hook/lifecycle';
import { nodeKey } from '../nodeKey';
import { type CheckState, checkState } from './checkState';
import { callOwnWebhook, checkUrl } from './ownWebhook';
import { addRange, type Counts, type Finding, floorOf, isShort, planCheck, type Range, rangeSize, type Replay, takeHeights } from './plan';
import { localReceived, type Received } from './received';

/** Heights replayed in one check; more wait for the next, which comes soon. */
export const REPLAY_PER_CHECK = 100;
/** Heights this near the highest evaluated one are not replayed yet (see closeGaps). */
export const SETTLED_DEPTH = 6;
/** The default Catch-Up Limit: the most heights the trigger replays for one gap by itself. */
export const DEFAULT_CATCH_UP_LIMIT = 2_000;
/**
 * No delivery for this long (or half the check interval, if shorter) and the hook's stream is taken to be idle, not
 * behind (plan.ts): a stream behind n8n's pace sends the next delivery as soon as n8n answers the one before, so only a
 * workflow that runs longer than this per delivery, with Respond: When the Workflow Finishes, looks idle while behind
 * (the plan then replays a window for nothing).
 */
export const IDLE_MS = 30_000;

export interface GapCheck {
	/** The hook as the check read it (before any repair); undefined when it had been deleted. */
	read: Hook | undefined;
	/** When it was read. */
	readAt: number;
	/** The hook that delivers now. */
	hookId: string;
	repaired: boolean;
	/** With `repaired`: the counts of the hook that delivers now when it was brought back, when known (plan.ts). */
	resumedFrom?: Counts;
	/** Stops the replay between two heights (n8n closed the trigger). */
	stillOpen: () => boolean;
	catchUpLimit: number;
	/** Replays nothing this time (the workflow keeps failing on a delivery: replays would only feed it more); what is found waits. */
	hold?: boolean;
	/** What n8n took, heard before the hook was read (hearReceived): every block in it was evaluated before that read. */
	heard?: Heard;
	/** The check interval: the stream is idle after IDLE_MS or half of it, whichever is shorter. */
	intervalMs: number;
	/** The trigger's Internal Webhook Address: where to call its webhook instead of the production URL (ownWebhook.ts). */
	internalAddress?: string;
	/** n8n started this trigger at its own start (not an activation): a hook it finds is not one just registered. */
	atStartup?: boolean;
}

/**
 * What n8n took, as the check heard it:
 * - from the trigger's webhook (every process's notes, kept in the static data);
 * - else, when the webhook could not be reached (`unreachable`: why), from this process's own notes, if it took any
 *   delivery of the hook since it started: in regular mode it takes every one, so they are complete;
 * - else nothing (`blind`: why): this process took none, so it cannot tell whether another takes them (queue mode).
 */
export interface Heard {
	received?: Received;
	unreachable?: string;
	blind?: string;
	/** What the call to the trigger's webhook failed with, kept apart: n8n rewrites an error message that names an error code. */
	callError?: string;
}

export interface GapOutcome {
	found: Finding[];
	replayed: number;
	/** Heights ready to replay and not replayed yet (the next check comes soon); those near the tip wait apart. */
	left: number;
	/** How long to wait before the next check, when the rate-limit window's spare budget ran out. */
	waitMs?: number;
	/** The next check had better come soon (plan.ts): a block may be missing, and the check after this one would tell. */
	soon?: boolean;
	/** Heights of a gap over the Catch-Up Limit that the trigger does not replay. */
	overLimit?: Range;
	/** The gap over the limit reaches back to the hook's first block for want of any record of what arrived (plan.ts). */
	overLimitUnknown?: true;
	/** Why what n8n took could not be known this time (its own webhook could not be reached, nothing taken here). */
	blind?: string;
	/** While blind: the matches the service counted since the check before, which nothing could be held against. */
	unjudged?: number;
	/** The trigger's webhook could not be reached, and the check counted what this process took itself: why. */
	unreachable?: string;
	/** What that call failed with (blind or unreachable). */
	callError?: string;
	/** The replay stopped on an error (the service refused or could not be reached); what it said. */
	replayError?: string;
	/** What n8n took, as the check saw it (the delivery that keeps coming back, for alerts.ts). */
	received?: Received;
}

/** The consumer secret deliveries carry, to call the webhook with: the credential's, else the account's (read once, again after a 401). */
async function secretFor(ctx: ITriggerFunctions, connection: Connection, kept: CheckState, again: boolean): Promise<string | undefined> {
	if (connection.consumerSecret) return connection.consumerSecret;
	if (!kept.secret || again) kept.secret = (await getSecret(ctx, { connection })) ?? undefined;
	return kept.secret;
}

/** A refusal of the secret by the trigger's webhook, however n8n's HTTP helper words it. */
function is401(error: unknown): boolean {
	const { httpCode, status, response } = (error ?? {}) as { httpCode?: unknown; status?: unknown; response?: { status?: unknown } };
	return [httpCode, status, response?.status].some((code) => String(code) === '401') || /\b401\b/.test((error as Error)?.message ?? '');
}


/** Calls to the trigger's webhook in one check at the most, to hear from every process behind a load balancer. */
const MAX_CALLS = 4;

/**
 * Calls the trigger's webhook with the state to keep; what n8n took, or why it is not known. With `gather`, calls
 * again until a process answers again after another was heard (queue mode: the webhook processes behind a load
 * balancer), so that every process's notes are in: one that was not would make the check replay more. Each answer
 * is the union of what every process heard so far wrote into the static data, so the last one holds them all.
 */
async function exchange(ctx: ITriggerFunctions, connection: Connection, kept: CheckState, internalAddress: string, gather = false): Promise<Heard> {
	const first = await exchangeOnce(ctx, connection, kept, internalAddress);
	if (!gather || !first.received?.by) return first;
	const heard = new Set([first.received.by]);
	let last = first;
	// The stream is as busy as the busiest process heard.
	let quietMs = first.received.quietMs;
	for (let call = 1; call < MAX_CALLS; call++) {
		const next = await exchangeOnce(ctx, connection, kept, internalAddress);
		if (!next.received?.by) break;
		last = next;
		if (next.received.quietMs !== undefined) quietMs = Math.min(quietMs ?? Number.POSITIVE_INFINITY, next.received.quietMs);
		// A load balancer sends each request to the next process in turn, but a delivery between two calls shifts the turn:
		// the same process twice in a row does not mean it is the only one. Done once a process answers again after
		// another was heard, or after three answers from one (regular mode: it takes every delivery).
		const again = heard.has(next.received.by);
		heard.add(next.received.by);
		if ((again && heard.size > 1) || (heard.size === 1 && call >= 2)) break;
	}
	return last.received && quietMs !== undefined ? { ...last, received: { ...last.received, quietMs } } : last;
}

async function exchangeOnce(ctx: ITriggerFunctions, connection: Connection, kept: CheckState, internalAddress: string): Promise<Heard> {
	const hook = stored(ctx);
	if (!hook) return { blind: 'no hook is kept' };
	const url = checkUrl(hook.webhookUrl, ctx.getNode().webhookId, internalAddress);
	const call = async (again: boolean): Promise<Received | Error> => {
		try {
			const secret = await secretFor(ctx, connection, kept, again);
			if (!secret) return new Error('the account has no consumer secret');
			return (await callOwnWebhook(ctx, url, secret, { gaps: kept.state, production: hook, floor: floorOf(kept.state) })).received;
		} catch (error) {
			return error as Error;
		}
	};
	let answer = await call(false);
	// The account's secret read again once after a refusal (it may have been rotated); the credential's is what it is.
	if (answer instanceof Error && is401(answer) && !connection.consumerSecret) answer = await call(true);
	if (!(answer instanceof Error)) return { received: answer };
	const why = `the trigger's webhook at ${url} could not be reached`;
	const local = localReceived(ctx, floorOf(kept.state));
	return local ? { received: local, unreachable: why, callError: answer.message } : { blind: why, callError: answer.message };
}

const numberOr = (value: unknown, fallback: number | null): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

function describe(finding: Finding): string | undefined {
	// Said by the alerts (hook/alerts.ts).
	if (finding.kind === 'dry' || finding.kind === 'undone') return undefined;
	const [from, to] = finding.range;
	if (finding.kind === 'stopped') {
		const why = finding.fromHookStart ? ' (nothing is known of what arrived before: from its first block)' : '';
		return `the hook had stopped delivering; replaying heights ${from}-${to}, what it may have missed meanwhile${why}`;
	}
	if (finding.kind === 'missing') return `the service matched ${finding.matched} block(s) that n8n took only ${finding.arrived} of; replaying heights ${from}-${to}`;
	return `the service evaluated blocks again (a reorganisation, or a Backfill) beside ${finding.matched} match(es); replaying heights ${from}-${to} to be sure`;
}

/** Keeps the newest `limit` heights of the pending ranges; what is older is returned as one range. */
function withinLimit(pending: Range[], limit: number): { kept: Range[]; over?: Range } {
	const size = rangeSize(pending);
	if (size <= limit) return { kept: pending };
	const { now: over, left: kept } = takeHeights(pending, size - limit);
	return { kept, over: [over[0][0], over[over.length - 1][1]] };
}

/**
 * What n8n's processes took, asked for before the check reads the hook: the plan then knows that every block it
 * counts was evaluated before that read (plan.ts), and a block still on its way is only late, not missing.
 */
export async function hearReceived(ctx: ITriggerFunctions, connection: Connection, internalAddress = ''): Promise<Heard> {
	return await exchange(ctx, connection, checkState(ctx), internalAddress, true);
}

export async function closeGaps(ctx: ITriggerFunctions, connection: Connection, check: GapCheck): Promise<GapOutcome> {
	const kept = checkState(ctx);
	const internalAddress = check.internalAddress ?? '';
	const { received, blind, unreachable, callError } = check.heard ?? (await exchange(ctx, connection, kept, internalAddress, true));
	const status = (check.read?.status ?? {}) as Record<string, unknown>;
	const { state, found, soon, unjudged } = planCheck(kept.state, {
		now: check.readAt,
		hookId: check.hookId,
		repaired: check.repaired,
		...(check.resumedFrom && { resumedFrom: check.resumedFrom }),
		evaluatedHeight: numberOr(status.last_evaluated_block_height, null),
		evaluatedCount: numberOr(status.evaluated_block_count, 0) ?? 0,
		occurrences: numberOr(status.occurrence_count, 0) ?? 0,
		taken: received?.taken,
		...(received?.quietMs !== undefined && { quietMs: received.quietMs }),
		idleMs: Math.min(IDLE_MS, check.intervalMs / 2),
		...(check.atStartup && kept.unplanned && { lifeUnknown: true }),
	});
	kept.unplanned = undefined;
	for (const finding of found) {
		const said = describe(finding);
		if (said) logHealed(ctx, said);
	}
	const { kept: pending, over } = withinLimit(state.pending, check.catchUpLimit);
	// Not too near the tip: a reorganisation there could undo a replayed block after the service had read it and before
	// it queued its delivery, so the delivery would come after the rollback. Those heights wait for the chain to move on.
	const settled = (state.previous?.height ?? Number.NEGATIVE_INFINITY) - SETTLED_DEPTH;
	const ready = pending.filter(([from]) => from <= settled).map(([from, to]): Range => [from, Math.min(to, settled)]);
	const waiting = pending.filter(([, to]) => to > settled).map(([from, to]): Range => [Math.max(from, settled + 1), to]);
	// Half of each rate-limit window is kept for everything else the account does, and the other half shared equally by
	// the triggers of the account that have heights to replay (transport/pacing.ts): oldest heights first within a hook.
	const spare = pacerFor(connection.accountKey).share(nodeKey(ctx), check.hold ? 0 : rangeSize(ready));
	const { now, left } = takeHeights(ready, check.hold ? 0 : Math.min(REPLAY_PER_CHECK, spare.requests));
	const replays: Replay[] = now.map(([from, to]) => ({ from, to, at: Date.now(), evaluated: 0 }));
	state.pending = [...left, ...waiting].reduce<Range[]>((ranges, range) => addRange(ranges, range), []);
	state.replays = [...state.replays, ...replays];
	kept.state = state;
	// Kept, and the replays listed, before replaying: a delivery they bring is then known for one (received.ts), and a
	// restart of n8n meanwhile replays again rather than forgets.
	// When the webhook could not be reached a moment ago, not tried again: the state stays in this process's memory
	// (checkState.ts), where its own deliveries find the replays listed, and what it took is read there again.
	const after = blind ? undefined : unreachable ? { received: localReceived(ctx, floorOf(state)) } : await exchange(ctx, connection, kept, internalAddress);
	// A window short when the hook was read may have had its last delivery on the way: asked again a moment later (this
	// call costs the service nothing), a block that came meanwhile spares the early check. Only the timing of the next
	// check depends on it; the window is judged later, on what was heard before a read.
	const closing = state.windows.find((window) => window.closedAt === check.readAt);
	const soonNow = soon === true && !(closing && after?.received && !isShort(closing, after.received.taken));

	let replayed = 0;
	let replayError: string | undefined;
	for (const replay of replays) {
		for (let height = replay.from; height <= replay.to; height++) {
			if (replayError !== undefined || !check.stillOpen()) {
				state.pending = addRange(state.pending, [height, replay.to]);
				break;
			}
			try {
				await evaluateHook(ctx, check.hookId, { block_height: height }, { connection });
				replay.evaluated++;
				replayed++;
			} catch (error) {
				// Gone (deactivated, deleted): the next check sees to the hook. Anything else: tried again at the next check.
				replayError = isNotFound(error) ? `hook ${check.hookId} is gone` : (error as Error).message;
				state.pending = addRange(state.pending, [height, replay.to]);
				break;
			}
		}
	}
	return {
		found,
		replayed,
		// What could be replayed now and was not (the per-check bound, an error): the next check comes soon for it, once the
		// rate-limit window has room again if it had none.
		// Held (the workflow keeps failing on a delivery): they wait, as those near the tip do.
		left: check.hold ? 0 : Math.max(0, rangeSize(state.pending) - rangeSize(waiting)),
		...(spare.requests < REPLAY_PER_CHECK && { waitMs: spare.resetInMs }),
		...(soonNow && { soon: true }),
		...(over && { overLimit: over }),
		...(over && found.some((finding) => finding.kind === 'stopped' && finding.fromHookStart && finding.range[0] <= over[1]) && { overLimitUnknown: true as const }),
		...(blind && { blind }),
		...(unjudged !== undefined && { unjudged }),
		...(unreachable && { unreachable }),
		...(callError && { callError }),
		...(replayError && { replayError }),
		...(received && { received }),
	};
}
