/**
 * Step 5 of a health check (run.ts), and the one place the check tells the user anything, from what
 * the steps found:
 * - n8n's log (info): each repair and each gap found, with what was done and why; once, what the check
 *   cannot see or reach and how it makes do (until that changes);
 * - n8n's log (warn): a replay that stopped, heights over the Catch-Up Limit, and once, a check that
 *   did not complete (until one does);
 * - the workflow's Error Workflow, once per incident (planning/incidents.ts): n8n 2.x saves a failed
 *   execution (`saveFailedExecution`) and the workflow stays active; n8n 1.x has no such call from a
 *   trigger, so there the incident is an error line in n8n's log. An incident's end is an info line.
 */
import { NodeOperationError } from 'n8n-workflow';

import type { Check, Checked, GapFindings, Hooked, Run } from './check';
import type { Finding } from './planning/gapState';
import { type AlertState, alertsOf, assess, duration, type GapOutcome, type IncidentKind } from './planning/incidents';

/** A gap found, as n8n's log says it; undefined for those the Error Workflow is told of. */
function describe(finding: Finding): string | undefined {
	if (finding.kind === 'dry' || finding.kind === 'undone') return undefined;
	const [from, to] = finding.range;
	if (finding.kind === 'stopped') {
		const why = finding.fromHookStart
			? ' (nothing is known of what arrived before: from its first block)'
			: finding.unknownStart
				? ` (nothing is known of what arrived before: from below the last block the service matched before it stopped, height ${finding.unknownStart.lastMatch ?? finding.unknownStart.stoppedAt})`
				: '';
		return `the hook had stopped delivering; replaying heights ${from}-${to}, what it may have missed meanwhile${why}`;
	}
	if (finding.kind === 'missing') return `the service matched ${finding.matched} block(s) that n8n took only ${finding.arrived} of; replaying heights ${from}-${to}`;
	return `the service evaluated blocks again (a reorganisation, or a Backfill) beside ${finding.matched} match(es); replaying heights ${from}-${to} to be sure`;
}

/** The gap steps' findings as one outcome: what the incidents are assessed on, and what the schedule reads. */
function outcomeOf({ heard, plan, replayed }: GapFindings): GapOutcome {
	const { found, over, state } = plan;
	const { received, blind, unreachable, callError, at, here, nearby, awaitingDelivery } = heard;
	return {
		found,
		replayed: replayed.replayed,
		left: replayed.left,
		...(plan.waitMs !== undefined && { waitMs: plan.waitMs }),
		...(replayed.soon && { soon: true }),
		...(over && { overLimit: over }),
		...(over && found.some((finding) => finding.kind === 'stopped' && finding.fromHookStart && finding.range[0] <= over[1]) && { overLimitUnknown: true as const }),
		...(blind && { blind }),
		...(plan.unjudged !== undefined && { unjudged: plan.unjudged }),
		...(unreachable && { unreachable }),
		...(callError && { callError }),
		...(replayed.replayError && { replayError: replayed.replayError }),
		...(received && { received }),
		...(state.unheard && { unheard: { range: state.unheard.range, ...(at && { at }), ...(here && { here }) } }),
		...(nearby && at && { nearby: at }),
		...(awaitingDelivery && { awaitingDelivery }),
	};
}

/** What the check sees and cannot see of n8n's side, said once until it changes; what it could not do, at each check. */
function logGaps(check: Check, gaps: GapOutcome): void {
	const { loggedOnce: logged, where, meta } = check;
	const logger = check.ctx.logger;
	if (gaps.blind && !logged.blind) {
		logger.warn(
			`${where}: cannot tell which blocks reached the workflow: ${gaps.blind} (${gaps.callError ?? 'no answer'}), and this n8n process has taken none of the hook's deliveries since it started. A hook that stops is still brought back and what it missed replayed; a match lost otherwise is not found. In queue mode, set the trigger's Internal Webhook Address to where this main process reaches the webhook processes.`,
			meta,
		);
	}
	logged.blind = gaps.blind;
	// (Not before this process took a delivery: it then calls its webhook where that came in, and says so below.)
	if (gaps.unreachable && !gaps.awaitingDelivery && !logged.unreachable) {
		logger.info(
			`${where}: ${gaps.unreachable} (${gaps.callError ?? 'no answer'}). The health check counts what this n8n process took itself, which is every delivery when it runs alone (regular mode); it keeps that in memory, so a restart of n8n forgets it, with a gap not yet replayed: after one it judges only what came since, and a hook found stopped then is replayed from the service's record of where it stopped. To keep it across restarts, set the trigger's Internal Webhook Address: in regular mode to n8n's own address (such as http://localhost:5678), in queue mode to where this main process reaches the webhook processes.`,
			meta,
		);
	}
	logged.unreachable = gaps.awaitingDelivery ? undefined : gaps.unreachable;
	if (gaps.nearby && gaps.nearby !== logged.nearby) {
		logger.info(
			`${where}: n8n's webhook URL cannot be reached from inside; the health check calls the trigger's webhook where this n8n process takes its deliveries (${gaps.nearby}), and keeps its state there across restarts.`,
			meta,
		);
	}
	logged.nearby = gaps.nearby;
	if (gaps.replayError) logger.warn(`${where}: the replay of missed blocks stopped (${gaps.replayError}); ${gaps.left} height(s) are left and are tried again at the next check.`, meta);
	if (gaps.overLimit) {
		const [from, to] = gaps.overLimit;
		logger.warn(`${where}: heights ${from}-${to} may have been missed and are over the Catch-Up Limit: they are not replayed. Backfill them with the Stacks Hooks node (Hook > Backfill).`, meta);
	}
}

/** Runs the Error Workflow once for each incident that began (n8n 2.x), says each that ended in n8n's log. */
function raiseIncidents(check: Check, state: AlertState, began: IncidentKind[], ended: IncidentKind[], before: AlertState): void {
	const { ctx, where, meta } = check;
	for (const kind of began) {
		const incident = state.incidents[kind]!;
		const error = new NodeOperationError(ctx.getNode(), incident.what, { description: incident.todo });
		// n8n 2.x: a failed execution, and the workflow's Error Workflow. n8n 1.x has no such call from a trigger.
		const save = (ctx as Partial<Pick<typeof ctx, 'saveFailedExecution'>>).saveFailedExecution;
		if (typeof save === 'function') save.call(ctx, error);
		else ctx.logger.error(`${where}: ${incident.what} ${incident.todo}`, meta);
	}
	for (const kind of ended) {
		const incident = before.incidents[kind];
		ctx.logger.info(`${where}: resolved after ${duration(Date.now() - (incident?.since ?? Date.now()))}: ${incident?.what ?? kind}`, meta);
	}
}

/** The incidents of this check, from what it saw of the hook and its gaps, assessed and said; kept in the check's memory. */
function alert(check: Hooked, gaps: GapOutcome): void {
	const { hook, memory } = check;
	const before = alertsOf(memory.state);
	const status = hook.read?.status;
	const { state, began, ended } = assess(before, {
		now: Date.now(),
		hookId: hook.kept.hookId,
		wasInterrupted: hook.read?.status.status === 'interrupted',
		// The schema says a number, not its unit: seconds are taken for milliseconds below 10^12 (the year 2001 in ms).
		lastEvaluatedAt:
			hook.outcome === 'healthy' && typeof status?.last_evaluated_at === 'number' ? (status.last_evaluated_at < 1e12 ? status.last_evaluated_at * 1000 : status.last_evaluated_at) : undefined,
		lastEvaluatedHeight: status?.last_evaluated_block_height ?? null,
		stallMinutes: check.settings.stallMinutes,
		gaps,
	});
	memory.state.alerts = state;
	raiseIncidents(check, state, began, ended, before);
}

/**
 * What one check found, told: that the service answers again after checks that did not complete, each repair
 * (step 2), and with the gap steps' findings, each gap, what the check cannot see, and the incidents. Answers the
 * gaps as one outcome.
 */
export function report(check: Check, checked: Checked, gapFindings?: GapFindings): GapOutcome | undefined {
	const { ctx, loggedOnce: logged, where, meta } = check;
	if (logged.failing) ctx.logger.info(`${where}: the health check reaches the service again`, meta);
	logged.failing = false;
	for (const line of checked.healed ?? []) ctx.logger.info(`${where}: ${line}`, meta);
	if (!gapFindings) return undefined;
	for (const finding of gapFindings.plan.found) {
		const line = describe(finding);
		if (line) ctx.logger.info(`${where}: ${line}`, meta);
	}
	const gaps = outcomeOf(gapFindings);
	alert(gapFindings.hooked, gaps);
	logGaps(check, gaps);
	return gaps;
}

/** A check that did not complete: said once, until one does. */
export function reportCheckFailed(run: Run, error: Error): void {
	if (!run.loggedOnce.failing) {
		const { where, meta } = run;
		run.ctx.logger.warn(
			`${where}: the health check did not complete: ${error.message}. It tries again every ${run.settings.intervalMs / 60_000} min; this is logged once until a check completes.`,
			meta,
		);
	}
	run.loggedOnce.failing = true;
}
