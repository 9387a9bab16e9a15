/**
 * Telling the user, where n8n users look, when the trigger cannot keep its promise by itself: the
 * workflow's Error Workflow runs (n8n 2.x: the trigger saves a failed execution, `saveFailedExecution`,
 * and the workflow stays active), once per incident, not at every check; n8n 1.x has no such call from a
 * trigger, so there the incident is an error line in n8n's log. An incident's end is an info line in
 * n8n's log.
 *
 * Incidents, each from what the health check saw:
 * - **not evaluating**: the service has not evaluated a block for the hook for the Stall Alert time,
 *   although it shows as delivering (a stalled hook, as in hirosystems/chainhook#720, or a halted chain);
 * - **interrupted again**: the check found the hook interrupted by the service at INTERRUPTED_CHECKS checks
 *   in a row (the service cannot reach n8n's URL, or n8n answers it with errors);
 * - **not delivering**: windows in a row with matches of which nothing arrived, replays included;
 * - **gap over the limit**: heights that may be missing and that the trigger does not replay;
 * - **replay failing**: the replay of missed heights failed at REPLAY_ERROR_CHECKS checks in a row;
 * - **delivery failing**: n8n took the same delivery FAILING_TIMES times in a row, so the service did not
 *   accept its answers (most often the workflow fails on it: with Respond When the Workflow Finishes a
 *   failed run is answered 500 and sent again; or the answers were lost on the way back). The trigger
 *   cannot see which, so the alert says what it knows and names both;
 * - **gap start unknown**: the hook had stopped delivering and n8n kept no record of what reached the
 *   workflow before (the first start of this version, the static data lost), so where the gap began
 *   cannot be told: the trigger replays from the service's record of where it stopped, and says which
 *   heights below may have been lost;
 * - **rollback lost**: blocks the workflow took were undone while the service was not delivering, and
 *   their rollback, which the service dropped with the rest of its queue, is not something it replays;
 * - **notes unheard**: the check's notes of what arrived never held a delivery while the service counted
 *   matches it delivered (gapPlan.ts: `dry` with `unheard`): the check's address reaches an n8n process that
 *   takes none (queue mode with the Internal Webhook Address set to the main), or the service delivers
 *   nothing. Nothing is replayed on such notes; over once a delivery is heard;
 * - **check blind**: at BLIND_CHECKS checks in a row the service counted matches, none reached this n8n
 *   process, and the trigger's webhook, which would tell what the other processes took, could not be
 *   reached (queue mode with a public address the main cannot reach, and no Internal Webhook Address).
 *   It states only that: the check does not infer a missed block from what it cannot see.
 *
 * Pure: `assess` holds what one check saw against the incidents the check before kept (in the check's
 * memory, kept with the gap state) and says which began and which ended; step 5 (../report.ts) says them.
 */
import type { Finding, GapState, Range, Received } from './gapState';

export const DEFAULT_STALL_MINUTES = 30;
export const INTERRUPTED_CHECKS = 3;
export const REPLAY_ERROR_CHECKS = 3;
export const FAILING_TIMES = 3;
/** Checks in a row an incident must be gone for to be over: a delivery that keeps failing is not repeating in the instant its next one comes. */
export const GONE_CHECKS = 3;
export const BLIND_CHECKS = 3;

export type IncidentKind = 'notEvaluating' | 'interruptedAgain' | 'notDelivering' | 'gapOverLimit' | 'replayFailing' | 'deliveryFailing' | 'rollbackLost' | 'checkBlind' | 'gapStartUnknown' | 'notesUnheard';

/** LoggedOnce once when it happens; nothing to resolve afterwards (the user acts). */
const ONCE: IncidentKind[] = ['rollbackLost', 'gapStartUnknown'];

export interface Incident {
	/** When it began (ms since the epoch). */
	since: number;
	/** Checks in a row that did not see it. */
	gone?: number;
	/** What is wrong, in a sentence: names the hook and the block where there is one. */
	what: string;
	/** What the trigger did, and what the user should do. */
	todo: string;
}

/** Kept with the gap state (in the static data, through the trigger's webhook). */
export interface AlertState {
	incidents: Partial<Record<IncidentKind, Incident>>;
	/** Checks in a row that found the hook interrupted; that could not replay. */
	interrupted: number;
	replayErrors: number;
	/** Checks in a row that were blind while the service counted matches (absent in what older versions kept). */
	blindChecks?: number;
	/** The matches those checks could not judge. */
	blindMatched?: number;
}

export function emptyAlerts(): AlertState {
	return { incidents: {}, interrupted: 0, replayErrors: 0, blindChecks: 0, blindMatched: 0 };
}

/** The incidents the check before kept, carried in the gap state (so kept where it is kept). */
export function alertsOf(state: GapState): AlertState {
	return (state.alerts as AlertState | undefined) ?? emptyAlerts();
}

/** What the gap steps of one check found, as the user is told of it (../report.ts puts it together). */
export interface GapOutcome {
	found: Finding[];
	replayed: number;
	/** Heights ready to replay and not replayed yet (the next check comes soon); those near the tip wait apart. */
	left: number;
	/** How long to wait before the next check, when the rate-limit window's spare budget ran out. */
	waitMs?: number;
	/** The next check had better come soon (gapPlan.ts): a block may be missing, and the check after this one would tell. */
	soon?: boolean;
	/** Heights of a gap over the Catch-Up Limit that the trigger does not replay. */
	overLimit?: Range;
	/** The gap over the limit reaches back to the hook's first block for want of any record of what arrived (gapPlan.ts). */
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
	/** What n8n took, as the check saw it (the delivery that keeps coming back). */
	received?: Received;
	/**
	 * Heights kept apart because the notes heard never held a delivery (gapPlan.ts, `unheard`): where the check heard them,
	 * and whether that was this process itself.
	 */
	unheard?: { range: Range; at?: string; here?: true };
	/** Where the check heard its webhook, when not at the webhook URL but where this process took a delivery (../channel/ownWebhook.ts). */
	nearby?: string;
	/** Unreachable, and no delivery taken yet to call it where one came in (../channel/ownWebhook.ts). */
	awaitingDelivery?: true;
}

/** What one check saw, as far as alerts go. */
export interface CheckFacts {
	now: number;
	hookId: string;
	/** The check found the hook interrupted by the service (and enabled it again). */
	wasInterrupted: boolean;
	/** `last_evaluated_at` and `last_evaluated_block_height` of the hook as read, when it delivers. */
	lastEvaluatedAt?: number;
	lastEvaluatedHeight?: number | null;
	stallMinutes: number;
	gaps?: GapOutcome;
}

const range = ([from, to]: Range) => (from === to ? `height ${from}` : `heights ${from}-${to}`);
/** A time span as the user is told it. */
export const duration = (ms: number) => (ms < 120_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} minutes`);

/** The incidents of this check, from the ones before: which began and which ended. */
export function assess(before: AlertState, facts: CheckFacts): { state: AlertState; began: IncidentKind[]; ended: IncidentKind[] } {
	const interrupted = facts.wasInterrupted ? before.interrupted + 1 : 0;
	const replayErrors = facts.gaps?.replayError ? before.replayErrors + 1 : facts.gaps ? 0 : before.replayErrors;
	const hook = `hook ${facts.hookId}`;
	const now: Partial<Record<IncidentKind, Omit<Incident, 'since'>>> = {};
	// Blind with matches to judge: counted; blind with none (an idle hook): as before; heard: over.
	const blindNow = facts.gaps?.blind !== undefined && (facts.gaps.unjudged ?? 0) > 0;
	const blindChecks = blindNow ? (before.blindChecks ?? 0) + 1 : facts.gaps?.blind !== undefined ? (before.blindChecks ?? 0) : facts.gaps ? 0 : (before.blindChecks ?? 0);
	const blindMatched = blindChecks === 0 ? 0 : (before.blindMatched ?? 0) + (facts.gaps?.unjudged ?? 0);

	const stallMs = facts.stallMinutes * 60_000;
	if (stallMs > 0 && facts.lastEvaluatedAt !== undefined && facts.now - facts.lastEvaluatedAt > stallMs) {
		now.notEvaluating = {
			what: `The service has not evaluated a block for ${hook} for ${duration(facts.now - facts.lastEvaluatedAt)} (the last was height ${facts.lastEvaluatedHeight ?? 'unknown'}), although the hook shows as delivering.`,
			todo: 'The trigger checks it at every health check. If the chain moves on meanwhile (see the explorer), the hook is stalled at the service: deactivate and activate the workflow to register it anew; the trigger replays what it missed.',
		};
	}
	if (interrupted >= INTERRUPTED_CHECKS) {
		now.interruptedAgain = {
			what: `The service interrupted ${hook} again at ${interrupted} health checks in a row: its deliveries to this workflow keep failing.`,
			todo: "The trigger enables it again and replays what it missed each time. Check that the service can reach n8n's webhook URL (WEBHOOK_URL, HTTPS) and that n8n answers it.",
		};
	}
	const dry = facts.gaps?.found.find((finding) => finding.kind === 'dry' && !finding.unheard);
	const unheard = facts.gaps?.found.find((finding): finding is Extract<Finding, { kind: 'dry' }> => finding.kind === 'dry' && finding.unheard !== undefined);
	if (before.incidents.notesUnheard && facts.gaps?.unheard) now.notesUnheard = before.incidents.notesUnheard;
	else if (unheard?.unheard) {
		const where = facts.gaps?.unheard?.at ? ` at ${facts.gaps.unheard.at}${facts.gaps.unheard.here ? ' (this main process itself)' : ''}` : '';
		now.notesUnheard = {
			what: `The health check cannot tell whether the blocks matching ${hook} reach the workflow: over ${unheard.checks} checks the service counted ${unheard.matched} match(es) at ${range(unheard.unheard)} and kept the hook delivering, but the n8n process(es) that answer the check${where} have taken none of its deliveries since they started: they are not where the deliveries land, or the service delivers nothing.`,
			todo: `In queue mode the webhook processes take the deliveries: set the trigger's Internal Webhook Address (Options) to where this main process reaches them (an internal load balancer or service, such as http://n8n-webhook:5678), never to the main process; in regular mode, n8n's own address (such as http://localhost:5678) or empty. Until a delivery is heard the check replays nothing on what it cannot see (a hook that stops is still brought back and what it missed replayed); once one is heard it replays ${range(unheard.unheard)} and what it could not judge since. If the hook's blocks reach no execution at all, deactivate and activate the workflow.`,
		};
	}
	if (dry || (before.incidents.notDelivering && facts.gaps?.found.some((finding) => finding.kind === 'missing'))) {
		now.notDelivering = before.incidents.notDelivering ?? {
			what: `The service counted blocks matching ${hook} for several health checks, and none reached n8n, replayed ones included.`,
			todo: "The trigger keeps replaying them. Check that the service can reach n8n's webhook URL; if it can, the hook is stalled at the service: deactivate and activate the workflow.",
		};
	}
	if (facts.gaps?.overLimit && facts.gaps.overLimitUnknown) {
		// LoggedOnce as what it is: not a gap found, but a hook that stopped with no record kept of what arrived before.
		now.gapOverLimit = {
			what: `${hook} had stopped delivering, and n8n kept no record of what reached the workflow before (the first start of this version, or the workflow's static data was lost): the trigger replays the newest heights of the hook's life up to the Catch-Up Limit and cannot tell whether ${range(facts.gaps.overLimit)} reached the workflow.`,
			todo: `If the workflow needs them, Backfill ${range(facts.gaps.overLimit)} with the Stacks Hooks node (Hook > Backfill, at most 1,000 heights per item).`,
		};
	} else if (facts.gaps?.overLimit) {
		now.gapOverLimit = {
			what: `Blocks at ${range(facts.gaps.overLimit)} may not have reached the workflow (${hook}), and they are more than the Catch-Up Limit: the trigger does not replay them.`,
			todo: `Backfill ${range(facts.gaps.overLimit)} with the Stacks Hooks node (Hook > Backfill, at most 1,000 heights per item), or raise the trigger's Catch-Up Limit.`,
		};
	}
	const unknownStart = facts.gaps?.found.find((finding) => finding.kind === 'stopped' && finding.unknownStart !== undefined);
	if (unknownStart?.kind === 'stopped' && unknownStart.unknownStart) {
		const { stoppedAt, lastMatch } = unknownStart.unknownStart;
		const [from, to] = unknownStart.range;
		const lastSaid = lastMatch === undefined ? '' : `, its last match then at height ${lastMatch}`;
		now.gapStartUnknown = {
			what: `${hook} had stopped delivering (the service had evaluated up to height ${stoppedAt}${lastSaid}), and n8n kept no record of what reached the workflow before it stopped, so the trigger cannot tell where the gap began. It replays ${range([from, to])}; blocks the service matched below height ${from} may not have reached the workflow.`,
			todo: `Find the last block the workflow recorded (for the ledger recipes: the highest block_height in its table) and Backfill from the height after it to ${from - 1} with the Stacks Hooks node (Hook > Backfill, at most 1,000 heights per item); if it recorded height ${from - 1} or above, nothing is missing.`,
		};
	}
	if (replayErrors >= REPLAY_ERROR_CHECKS) {
		now.replayFailing = {
			// The service's error in the description: n8n replaces a message that names an error code with its own.
			what: `The replay of blocks that may not have reached the workflow (${hook}) failed at ${replayErrors} health checks in a row.`,
			todo: `The last failure: ${facts.gaps?.replayError ?? 'unknown'}. The trigger tries again at every health check (${facts.gaps?.left ?? 0} height(s) left). Check the credential's API key and the service's status (Service > Get API Status).`,
		};
	}
	const undone = facts.gaps?.found.find((finding) => finding.kind === 'undone');
	if (undone?.kind === 'undone') {
		const blocks = undone.blocks.map(([height, hash]) => `0x${hash}… at height ${height}`).join(', ');
		now.rollbackLost = {
			what: `Blocks the workflow took were undone by a chain reorganisation while ${hook} was not delivering, and their rollback never reached it: ${blocks}. The service does not send a rollback again.`,
			todo: "Undo what the workflow did for those blocks: their items' ids (blockId, transactionId, eventId) begin with the block hash shown (e.g. with the PostgreSQL ledger: DELETE FROM stacks_events WHERE block_hash LIKE '0x<hash>%').",
		};
	}
	if (facts.gaps?.blind !== undefined && (blindChecks >= BLIND_CHECKS || before.incidents.checkBlind)) {
		// The call's error in the description only: n8n replaces a message that names an error code (ECONNREFUSED, ...) with
		// its own ("The service refused the connection"), which would hide what the trigger knows.
		now.checkBlind = before.incidents.checkBlind ?? {
			what: `The health check cannot tell whether the blocks matching ${hook} reach the workflow: over ${blindChecks} checks the service counted ${blindMatched} match(es), none reached this n8n process, and ${facts.gaps.blind}.`,
			todo: `The call failed with: ${facts.gaps.callError ?? 'no answer'}. In queue mode the webhook processes take the deliveries: set the trigger's Internal Webhook Address (Options) to an address this main process reaches them at, such as an internal load balancer or service (http://n8n-webhook:5678), or let it reach n8n's public webhook URL. Until then a hook that stops is still brought back and what it missed replayed, but a match lost otherwise is not found.`,
		};
	}
	const repeating = facts.gaps?.received?.repeating;
	// Once said, the incident lasts while any delivery is being taken again (a workflow that fails on every block makes
	// the service give up on one, and the next comes again in turn): it is over when deliveries go through.
	if (repeating && (repeating.times >= FAILING_TIMES || (before.incidents.deliveryFailing !== undefined && repeating.times >= 2))) {
		now.deliveryFailing = {
			what: `n8n took the delivery of block ${repeating.height} (${repeating.hash}, ${repeating.direction}) of ${hook} ${repeating.times} times in a row: the service did not get an answer it accepts, and the hook's later blocks wait behind it.`,
			todo: "If the workflow fails on that block (its failed executions show it: with Respond When the Workflow Finishes a failed run is answered 500), fix what fails: the service's next try then goes through. If it does not fail, n8n's answers do not reach the service (a proxy's time-out on the way back). Meanwhile the trigger replays nothing (a replay would meet the same fate); once deliveries go through again, it replays what the hook missed.",
		};
	}

	const incidents: AlertState['incidents'] = {};
	const began: IncidentKind[] = [];
	const ended: IncidentKind[] = [];
	for (const kind of Object.keys(now) as IncidentKind[]) {
		const known = before.incidents[kind];
		incidents[kind] = known ? { ...known, what: now[kind]!.what, todo: now[kind]!.todo, gone: 0 } : { since: facts.now, ...now[kind]! };
		if (!known) began.push(kind);
	}
	for (const kind of Object.keys(before.incidents) as IncidentKind[]) {
		if (now[kind] || ONCE.includes(kind)) continue;
		const incident = before.incidents[kind]!;
		const gone = (incident.gone ?? 0) + 1;
		if (gone >= GONE_CHECKS) ended.push(kind);
		else incidents[kind] = { ...incident, gone };
	}
	return { state: { incidents, interrupted, replayErrors, blindChecks, blindMatched }, began, ended };
}
