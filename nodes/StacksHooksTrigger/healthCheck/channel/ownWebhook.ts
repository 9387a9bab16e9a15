/**
 * The check's line to the trigger's own webhook: how the main process, where the health check runs,
 * hears what the other n8n processes received and keeps its own findings across restarts.
 *
 * n8n gives the two sides no other way: trigger() (the health check, on the main only) sees the
 * workflow's static data as it was loaded when the workflow was activated, and n8n never saves what
 * it writes there; webhook() (wherever deliveries land: the main in regular mode, the webhook
 * processes in queue mode) loads it fresh for every request, and n8n saves what it writes when
 * webhook() answers by itself and starts no execution (but not for a delivery answered after its
 * execution is queued). So at each check the main POSTs to its own production webhook, with the
 * consumer secret like a delivery and the header `x-stacks-hooks-check`; the process that takes it
 * writes its count of received blocks (received.ts) and the main's state (the gap state, the hook it
 * keeps) into the static data, and answers the sum and the state. No execution starts; the service is
 * not asked.
 *
 * Where: when the trigger's Internal Webhook Address is set, at that address with the same path (queue
 * mode: an internal load balancer or service in front of the webhook processes, for a main that cannot
 * reach the public address); else at the node's production webhook URL (n8n's public WEBHOOK_URL), and,
 * where that cannot be reached from inside (behind an ingress, no hairpin NAT), at the address where
 * this process itself took a delivery of the node (received.ts, `noteDelivery`: the local end of that connection and
 * the path n8n served, so a proxy's prefix or port makes no difference): in regular mode, where the
 * main takes every delivery, its own webhook, and so its notes and state kept across restarts with no
 * setting. (A main in queue mode takes none, and learns no such address.) The call is never a condition
 * for being right: in regular mode the main takes every delivery itself and counts them in memory
 * (received.ts, localReceived): `exchange` falls back on them.
 * The health check calls it twice: to hear what n8n took (step 1, before it reads the hook: ../run.ts), and to
 * keep its plan before it replays (../replay.ts).
 */
import type { IDataObject, ITriggerFunctions, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { HooksClient } from '../../../shared/api/client';
import type { StoredHook } from '../../hook/keptHook';
import type { CheckState } from './checkState';
import { floorOf, type GapState, isGapState, type Received } from '../planning/gapState';
import { answeredHere, keepReceived, localReceived, ownUrlOf } from './received';

export const CHECK_HEADER = 'x-stacks-hooks-check';

/** How long the main waits for its own webhook. */
const CHECK_TIMEOUT_MS = 10_000;

/** What the main sends: its state, to be kept in the static data. */
export interface CheckRequest {
	gaps: GapState;
	/** The hook the main keeps now (the health check may have registered it again under a new UUID). */
	production?: StoredHook;
	/** Deliveries that applied nothing above this height are no longer needed. */
	floor: number;
	/** Where this call reached the webhook: kept, so that after a restart the check tries it before any delivery came. */
	via?: string;
}

export interface CheckAnswer {
	received: Received;
}

/** Whether a request to the trigger's webhook (already authenticated) is the main's check rather than a delivery. */
export function isCheck(ctx: IWebhookFunctions): boolean {
	return ctx.getMode() !== 'manual' && (ctx.getHeaderData() as IDataObject)[CHECK_HEADER] !== undefined;
}

const isObject = (value: unknown): value is IDataObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The receiving side: keeps what this process took and the main's state, answers the union. No execution starts, so n8n saves it. */
export function answerCheck(ctx: IWebhookFunctions): IWebhookResponseData {
	const body = ctx.getBodyData() as { gaps?: unknown; production?: unknown; floor?: unknown; via?: unknown };
	const data = ctx.getWorkflowStaticData('node');
	if (typeof body.via === 'string' && isHttpUrl(body.via)) data.checkVia = body.via;
	if (isGapState(body.gaps)) data.gaps = body.gaps as unknown as IDataObject;
	if (isObject(body.production) && typeof body.production.hookId === 'string' && typeof body.production.webhookUrl === 'string') {
		data.production = { hookId: body.production.hookId, webhookUrl: body.production.webhookUrl };
	}
	const answer: CheckAnswer = { received: keepReceived(ctx, typeof body.floor === 'number' ? body.floor : -1) };
	// Answered through n8n (no execution: no workflowData), which saves the static data before it sends the answer:
	// the check lists its replays here, then asks the service for them, and their deliveries must find them listed.
	return { webhookResponse: answer as unknown as IDataObject };
}

const isHttpUrl = (value: string) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol);

/** Where a check reached the trigger's webhook last, as the static data kept it when n8n loaded the workflow (answerCheck). */
function keptVia(ctx: ITriggerFunctions): string | undefined {
	const via = ctx.getWorkflowStaticData('node').checkVia;
	return typeof via === 'string' && isHttpUrl(via) ? via : undefined;
}

/** The Internal Webhook Address as a base URL; undefined when empty. Throws, saying why, on one that is not http(s). */
export function internalBase(address: string): URL | undefined {
	const internal = address.trim();
	if (!internal) return undefined;
	if (!URL.canParse(internal)) throw new Error(`The Internal Webhook Address "${internal}" is not a URL (e.g. http://n8n-webhook:5678)`);
	const base = new URL(internal);
	if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error(`The Internal Webhook Address "${internal}" is not an http:// or https:// address`);
	return base;
}

/**
 * Where the check calls the trigger's webhook: the production URL, or the same path (from the segment before the
 * node's webhookId: n8n's webhook endpoint, `webhook` unless N8N_ENDPOINT_WEBHOOK says otherwise) at the Internal
 * Webhook Address.
 */
export function checkUrl(webhookUrl: string, webhookId: string | undefined, internalAddress: string): string {
	const base = internalBase(internalAddress);
	if (!base) return webhookUrl;
	const path = new URL(webhookUrl).pathname;
	const at = webhookId ? path.indexOf(`/${webhookId}/`) : -1;
	const from = at > 0 ? path.lastIndexOf('/', at - 1) : -1;
	return `${base.origin}${base.pathname.replace(/\/+$/, '')}${from >= 0 ? path.slice(from) : path}`;
}

/** The main's side: one POST to its own webhook. Throws when it cannot be reached or does not answer a check. */
export async function callOwnWebhook(ctx: ITriggerFunctions, url: string, secret: string, request: CheckRequest): Promise<CheckAnswer> {
	const answer = (await ctx.helpers.httpRequest({
		method: 'POST',
		url,
		headers: { 'x-hook-consumer-secret': secret, [CHECK_HEADER]: '1' },
		body: request as unknown as IDataObject,
		json: true,
		timeout: CHECK_TIMEOUT_MS,
	})) as { received?: Received };
	const received = answer?.received;
	if (!received || !Array.isArray(received.taken)) throw new Error(`the webhook at ${url} did not answer as the trigger's own does`);
	return { received };
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
	/** Where the webhook answered, and whether the process that answered is this one (the main). */
	at?: string;
	here?: true;
	/** The webhook answered where this process took a delivery, the webhook URL having failed (received.ts, `ownUrlOf`). */
	nearby?: true;
	/** Unreachable, and this process has taken no delivery yet to call it where one came in. */
	awaitingDelivery?: true;
}

/** What of a health check the call needs (the check's object, ../check.ts, is one). */
export interface Caller {
	ctx: ITriggerFunctions;
	service: HooksClient;
	memory: CheckState;
	settings: { internalAddress: string };
}

/** The consumer secret deliveries carry, to call the webhook with: the credential's, else the account's (read once, again after a 401). */
async function secretFor(caller: Caller, again: boolean): Promise<string | undefined> {
	const { consumerSecret } = caller.service.connection;
	if (consumerSecret) return consumerSecret;
	if (!caller.memory.secret || again) caller.memory.secret = (await caller.service.secret()) ?? undefined;
	return caller.memory.secret;
}

/** A refusal of the secret by the trigger's webhook, however n8n's HTTP helper words it. */
function is401(error: unknown): boolean {
	const { httpCode, status, response } = (error ?? {}) as { httpCode?: unknown; status?: unknown; response?: { status?: unknown } };
	return [httpCode, status, response?.status].some((code) => String(code) === '401') || /\b401\b/.test((error as Error)?.message ?? '');
}

/** Calls to the trigger's webhook in one check at the most, to hear from every process behind a load balancer. */
const MAX_CALLS = 4;

/**
 * Calls the trigger's webhook with the check's state to keep; what n8n took, or why it is not known. With `gather`,
 * calls again until a process answers again after another was heard (queue mode: the webhook processes behind a load
 * balancer), so that every process's notes are in: one that was not would make the check replay more. Each answer
 * is the union of what every process heard so far wrote into the static data, so the last one holds them all.
 */
export async function exchange(caller: Caller, hook: StoredHook, how: 'gather' | 'once' | 'local' = 'once'): Promise<Heard> {
	// Deliveries that applied nothing above it are no longer needed: the webhook's processes forget them, as this one does.
	const floor = floorOf(caller.memory.state);
	// The webhook could not be reached a moment ago: not tried again, and what this process took read here (localReceived).
	if (how === 'local') return { received: localReceived(caller.ctx, floor) };
	const first = await exchangeOnce(caller, hook, floor);
	if (how !== 'gather' || !first.received?.by) return first;
	const heard = new Set([first.received.by]);
	let last = first;
	// The stream is as busy as the busiest process heard.
	let quietMs = first.received.quietMs;
	for (let call = 1; call < MAX_CALLS; call++) {
		const next = await exchangeOnce(caller, hook, floor);
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

async function exchangeOnce(caller: Caller, hook: StoredHook, floor: number): Promise<Heard> {
	const { ctx, memory } = caller;
	const { internalAddress } = caller.settings;
	const url = checkUrl(hook.webhookUrl, ctx.getNode().webhookId, internalAddress);
	// Without an Internal Webhook Address, also where this process took a delivery, or, before it took one, where the last
	// check reached the webhook before n8n restarted (the same n8n, at the same local address: the plan of the first check
	// after a start is then kept before it replays); the one that answered last first (an address that takes the
	// connection and never answers costs the call's time-out only once).
	const internal = internalBase(internalAddress) !== undefined;
	const own = internal ? undefined : (ownUrlOf(ctx) ?? keptVia(ctx));
	const urls = [...new Set([memory.via, url, own].filter((candidate): candidate is string => candidate !== undefined && (candidate === url || candidate === own)))];
	const call = async (at: string, again: boolean): Promise<Received | Error> => {
		try {
			const secret = await secretFor(caller, again);
			if (!secret) return new Error('the account has no consumer secret');
			return (await callOwnWebhook(ctx, at, secret, { gaps: memory.state, production: hook, floor, via: at })).received;
		} catch (error) {
			return error as Error;
		}
	};
	let failed: Error | undefined;
	for (const at of urls) {
		let answer = await call(at, false);
		// The account's secret read again once after a refusal (it may have been rotated); the credential's is what it is.
		if (answer instanceof Error && is401(answer) && !caller.service.connection.consumerSecret) answer = await call(at, true);
		if (!(answer instanceof Error)) {
			memory.via = at;
			return { received: answer, at, ...(answeredHere(answer) && { here: true as const }), ...(at !== url && { nearby: true as const }) };
		}
		// What the call to the webhook URL (or the Internal Webhook Address) failed with is what the user is told.
		if (at === url || !failed) failed = answer;
	}
	memory.via = undefined;
	const why = `the trigger's webhook at ${url} could not be reached${own ? `, nor where n8n took its deliveries (${own})` : ''}`;
	const local = localReceived(ctx, floor);
	const callError = failed?.message ?? 'not called';
	const awaiting = own === undefined && !internal ? { awaitingDelivery: true as const } : {};
	return local ? { received: local, unreachable: why, callError, ...awaiting } : { blind: why, callError, ...awaiting };
}
