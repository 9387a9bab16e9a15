/**
 * The trigger's hook at the service, from activation to deactivation: one
 * hook per webhook URL, enabled, remembered by UUID in the node's static data,
 * updated in place when only its filters change (a watch list's edits included),
 * watching addresses, given filters that select the kinds for any address when the
 * service refuses one filter per address and kind as too large (the trigger then
 * matches the list: ../watch/listedTransactions.ts), replaced (not duplicated) when other parameters change, adopted (not
 * duplicated) when it exists but was forgotten, and deleted by UUID on
 * deactivation. It never deletes a hook it did not register: only hooks
 * whose action URL is this node's own webhook URL are ever touched.
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { buildDefinition } from '../../shared/definition';
import { type BlockRef, HooksClient } from '../../shared/api/client';
import { isHttpsUrl } from '../../shared/constants';
import type { Definition, Hook } from '../../shared/schemas';
import { asNodeError } from '../../shared/transport/errors';
import { keepSecret } from '../secret/accountSecret';
import { noteGoneAtActivation, noteLeftStopped, noteReplacedAtActivation, noteStoppedAtActivation } from './activationNotes';
import { atStartup, healthCheckMs } from './checkInterval';
import { type HookOwner, remember, slotName, stored, type StoredHook } from './keptHook';
import { logHealed, whereInLog } from './log';
import { inTurn } from '../turns';
import { listeningSample, replaySampleBlock } from '../listening/sampleBlock';
import { forgetNode, nodeKey } from '../nodeMemory';
import { withoutDigest } from '../../shared/watchList/listHook';
import { refusedForSize, sizeRefusal } from '../../shared/watchList/refusal';
import { followList } from '../../shared/watchList/edit';
import { type HookShape, hookFilters, type ListRead, readWatchParameters, type WatchParameters } from '../watch/watching';

function defaultHookName(ctx: HookOwner): string {
	const workflow = ctx.getWorkflow();
	return `n8n: ${workflow.name ?? 'workflow'} (${workflow.id ?? 'unsaved'})${slotName(ctx) === 'test' ? ' [test]' : ''}`;
}

/** The node's parameters that make up its hook. */
export interface HookParameters {
	hookName: string;
	watching: WatchParameters;
	options: IDataObject;
}

/** Read when n8n runs the node (activation, trigger()): the health check later runs outside any run, where expressions cannot be evaluated. */
export function hookParameters(ctx: HookOwner): HookParameters {
	return {
		hookName: (ctx.getNodeParameter('hookName', '') as string).trim(),
		watching: readWatchParameters(ctx),
		options: ctx.getNodeParameter('options', {}) as IDataObject,
	};
}

/**
 * The hook the trigger wants, and, watching addresses, the one it takes when the service refuses the first as too
 * large (`inN8n`: filters selecting the kinds for any address, the trigger matching the list).
 */
interface Wanted {
	definition: Definition;
	inN8n?: Definition;
	/** Watching a watch list: the read of the list these were shaped by. */
	listRead?: ListRead;
}

async function desiredDefinitions(ctx: HookOwner, service: HooksClient, webhookUrl: string, params = hookParameters(ctx)): Promise<Wanted> {
	const node = ctx.getNode();
	const shape = await hookFilters(node, params.watching, service, nodeKey(ctx, node));
	const build = ({ filters, nameSuffix }: HookShape) =>
		buildDefinition(node, {
			name: `${params.hookName || defaultHookName(ctx)}${nameSuffix}`,
			webhookUrl,
			network: service.connection.network,
			filters,
			options: params.options,
		});
	return { definition: build(shape), ...(shape.inN8n && { inN8n: build(shape.inN8n) }), ...(shape.listRead && { listRead: shape.listRead }) };
}

/**
 * Watching a watch list: an edit that wrote the list after the trigger read it, and looked for the hooks watching it
 * before this one was registered, did not update it. The list is read again, and the hook follows it in place.
 */
async function followEditsSinceRead(service: HooksClient, hook: Hook, wanted: Wanted): Promise<void> {
	if (wanted.listRead) await followList(service, hook, wanted.listRead.name, wanted.listRead.tip);
}

/** Key-order-independent JSON, with options that are off left out (the service may echo them as false or null). */
function canonical(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value && typeof value === 'object') {
		const entries = Object.entries(value as IDataObject)
			.filter(([, v]) => v !== undefined && v !== null && v !== false)
			.sort(([a], [b]) => a.localeCompare(b));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
	}
	return JSON.stringify(value);
}

function fingerprint(definition: Pick<Definition, 'name' | 'network' | 'filters' | 'action'> & { options?: unknown }): string {
	return canonical({
		name: definition.name,
		network: definition.network,
		events: definition.filters.events,
		options: definition.options ?? {},
		url: definition.action.url,
	});
}

function sameHook(hook: Hook, desired: Definition): boolean {
	return fingerprint(hook.definition as unknown as Definition) === fingerprint(desired);
}

/** The hook is one of the wanted shapes: once taken in n8n for its size, a list's hook stays so until the list or its kinds change. */
const isWanted = (hook: Hook, wanted: Wanted) => sameHook(hook, wanted.definition) || (wanted.inN8n !== undefined && sameHook(hook, wanted.inN8n));

/**
 * The same hook but for its filters (and, watching a list, the list's digest in its name): Trigger On or a
 * typed list changed, or a watch list edited while the workflow was inactive, or whose edit did not reach it.
 */
function sameButFilters(hook: Hook, desired: Definition): boolean {
	const name = withoutDigest(hook.definition.name) === withoutDigest(desired.name) ? desired.name : hook.definition.name;
	return sameHook({ ...hook, definition: { ...hook.definition, name, filters: desired.filters } } as Hook, desired);
}

function webhookUrlOf(ctx: IHookFunctions): string {
	return ctx.getNodeWebhookUrl('default') ?? '';
}

/** Why the hook does not deliver, or undefined when it does. */
function whyNotDelivering(hook: Hook): string | undefined {
	if (!hook.status.enabled) {
		return hook.status.status === 'new' ? 'it had never been enabled (an earlier activation stopped before enabling it)' : 'it had been disabled at the service';
	}
	if (hook.status.status === 'interrupted') return 'the service had interrupted it after deliveries that did not go through';
	return undefined;
}

/** Enables a disabled hook and resumes an interrupted one (the same PATCH does both); why it had to, or undefined. */
export async function enableIfStopped(service: HooksClient, hook: Hook): Promise<string | undefined> {
	const why = whyNotDelivering(hook);
	if (why) await service.enable(hook.uuid);
	return why;
}

/**
 * On activation: a hook the service stopped (interrupted after failed deliveries, disabled) is enabled again, and told to
 * the health check, which replays what it missed. At n8n's start, when checks run, it is left stopped for the first check
 * (5 s after the trigger starts, ../healthCheck/run.ts), which brings it back and replays from the service's record of where it
 * stopped: that record, the hook's own status, is then the note of the stop, and outlives any restart before that check
 * (n8n saves nothing trigger() writes, and a note in memory would be gone with it: issue #38's crash loop). The blocks
 * of those seconds are replayed with the rest of the outage.
 */
async function ensureDeliveringOnActivation(ctx: IHookFunctions, hook: Hook, service: HooksClient): Promise<void> {
	const why = whyNotDelivering(hook);
	if (why && leftForCheck(ctx)) {
		logHealed(ctx, `found hook ${hook.uuid} stopped on n8n's start (${why}): the first health check brings it back and replays what it missed`);
		noteLeftStopped(ctx);
		return;
	}
	if (!(await enableIfStopped(service, hook))) return;
	logHealed(ctx, `enabled hook ${hook.uuid} again on activation: ${why}`);
	noteStoppedAtActivation(ctx, hook);
}

/** n8n's start (or a new leader's), with health checks on: the first check comes within seconds. */
function leftForCheck(ctx: IHookFunctions): boolean {
	return atStartup(ctx) && healthCheckMs(ctx) > 0;
}

/**
 * n8n asks, before it registers the webhook, whether it exists already: true skips create(). The answer is
 * yes when this node's hook is found at the service (findExisting), and the hook is then brought up to
 * date for this activation (repairAtActivation).
 */
export async function checkExists(this: IHookFunctions): Promise<boolean> {
	return await inTurn(this, async () => {
		const sample = listeningSample(this);
		const service = await HooksClient.connect(this);
		const webhookUrl = webhookUrlOf(this);
		const wanted = isHttpsUrl(webhookUrl) ? await desiredDefinitions(this, service, webhookUrl) : undefined;
		const found = await findExisting(this, service, webhookUrl, wanted);
		if (!found || !wanted) return false;
		await repairAtActivation(this, service, found, wanted, sample);
		return true;
	});
}

/** A hook of this node found at the service; `remembered` when it is the one the static data names. */
interface Found {
	hook: Hook;
	remembered: boolean;
}

/**
 * This node's hook at the service, if there is one that can go on: the remembered hook, when only its
 * filters differ at most, else one posting to this node's own URL with the wanted definition. Anything else
 * posting there is deleted, and the static data forgets a remembered hook that does not go on.
 */
async function findExisting(ctx: IHookFunctions, service: HooksClient, webhookUrl: string, wanted: Wanted | undefined): Promise<Found | undefined> {
	const known = stored(ctx);
	if (known) {
		const hook = await service.read(known.hookId);
		// Only its filters differ: updated in place, the same hook delivering throughout (a replacement would
		// miss the blocks between the deletion and the new registration).
		if (hook && wanted && (isWanted(hook, wanted) || sameButFilters(hook, wanted.definition))) return { hook, remembered: true };
		// Gone, or registered with other parameters or for another URL: replace it, leaving nothing behind.
		if (hook) await service.deleteIfThere(hook.uuid);
		// Gone (deleted while n8n was down, or replaced by a health check whose state was not kept): the hook that delivers
		// from now on, adopted or registered, is a repair for the check, which replays what was missed meanwhile.
		else noteGoneAtActivation(ctx);
		remember(ctx, undefined);
	}
	if (!wanted) return undefined;
	// Hooks posting to this very URL were registered by this node (n8n makes the URL unique to it)
	// and then forgotten, e.g. with lost static data: adopt the one that fits, remove the stale rest.
	const adopted = await keepOneOf(service, webhookUrl, wanted);
	return adopted && { hook: adopted, remembered: false };
}

/**
 * The hook found, made ready for this activation: its filters as wanted, a watch list's edits followed, the
 * account's secret kept, a stopped hook enabled (or left to the first health check), and the Sample Block
 * replayed when listening for a test event.
 */
async function repairAtActivation(ctx: IHookFunctions, service: HooksClient, { hook, remembered }: Found, wanted: Wanted, sample: BlockRef | undefined): Promise<void> {
	if (remembered && !isWanted(hook, wanted)) await updateInPlace(ctx, service, hook, wanted);
	await followEditsSinceRead(service, hook, wanted);
	await keepSecret(ctx, service);
	if (!remembered) noteReplacedAtActivation(ctx, hook);
	await ensureDeliveringOnActivation(ctx, hook, service);
	if (!remembered) remember(ctx, { hookId: hook.uuid, webhookUrl: wanted.definition.action.url });
	await whenListening(ctx, service, hook, sample);
}

/** The hook's filters (and name) updated to the wanted ones; to the shape matched in n8n when the service refuses them as too large. */
async function updateInPlace(ctx: HookOwner, service: HooksClient, hook: Hook, wanted: Wanted): Promise<void> {
	const { definition, inN8n } = wanted;
	try {
		await service.update(hook.uuid, { name: definition.name, filters: definition.filters });
	} catch (error) {
		if (!inN8n || !refusedForSize(error)) throw sizeRefusal(ctx.getNode(), error, definition) ?? error;
		logMatchedInN8n(ctx, definition, inN8n, error);
		try {
			await service.update(hook.uuid, { name: inN8n.name, filters: inN8n.filters });
		} catch (again) {
			throw sizeRefusal(ctx.getNode(), again, inN8n, definition.filters.events.length) ?? again;
		}
	}
}

/** LoggedOnce in n8n's log when a list's hook is taken in n8n: which filters were refused, which were sent instead. */
function logMatchedInN8n(ctx: HookOwner, refused: Definition, inN8n: Definition, error: NodeApiError): void {
	const { where, meta } = whereInLog(ctx);
	const types = [...new Set(inN8n.filters.events.map((filter) => filter.type))].join(', ');
	ctx.logger.warn(
		`${where}: the service refused a hook of ${refused.filters.events.length} filters (one per address and kind) as too large (${error.message}); its hook has ${inN8n.filters.events.length} filters instead (${types}), which the service matches for any address, and the trigger keeps the listed addresses' transactions of each delivery`,
		meta,
	);
}

/** Listening for a test event (never on activation): the Sample Block, if one is set, is replayed to the test hook. */
async function whenListening(ctx: IHookFunctions, service: HooksClient, hook: Hook, sample: BlockRef | undefined): Promise<void> {
	if (sample) await replaySampleBlock(ctx, service, hook, sample);
}

/** The hooks posting to `webhookUrl`: the first with the wanted definition is kept, the others deleted. */
async function keepOneOf(service: HooksClient, webhookUrl: string, desired: Wanted | undefined): Promise<Hook | undefined> {
	const mine = await service.postingTo(webhookUrl);
	const keep = desired ? mine.find((hook) => isWanted(hook, desired)) : undefined;
	for (const stale of mine) {
		if (stale !== keep) await service.deleteIfThere(stale.uuid);
	}
	return keep;
}

/** The service answered and refused (4xx): nothing was registered, so nothing is looked for or sent again. */
function refusedByService(error: unknown): boolean {
	return error instanceof NodeApiError && typeof error.httpCode === 'string' && error.httpCode.startsWith('4');
}

/**
 * Registers the hook without ever registering it twice. The transport does not repeat POST /me/, because
 * a lost answer (time-out, reset, a gateway's 502/504) may hide a hook the service did create. So after any
 * failure but a refusal, the hooks posting to this node's own URL are looked at first: one with the wanted
 * definition is this very registration, and is adopted; with none, registering once more is safe, and if
 * that fails too its error is raised. If the service cannot even be listed, the first error is raised: the
 * next activation's checkExists adopts whatever got registered.
 */
async function registerOnce(ctx: HookOwner, service: HooksClient, wanted: Wanted, refusedFilters?: number): Promise<Hook> {
	const { definition: desired, inN8n } = wanted;
	const webhookUrl = desired.action.url;
	try {
		return await service.register(desired);
	} catch (error) {
		if (inN8n && refusedForSize(error)) {
			logMatchedInN8n(ctx, desired, inN8n, error);
			return await registerOnce(ctx, service, { definition: inN8n }, desired.filters.events.length);
		}
		if (refusedByService(error)) throw sizeRefusal(ctx.getNode(), error, desired, refusedFilters) ?? asNodeError(ctx.getNode(), error);
		let registered: Hook | undefined;
		try {
			registered = (await service.postingTo(webhookUrl)).find((hook) => sameHook(hook, desired));
		} catch {
			throw asNodeError(ctx.getNode(), error);
		}
		return registered ?? (await service.register(desired));
	}
}

/**
 * Registers and enables the hook `desired` describes and remembers it. A registered hook that cannot be
 * enabled is removed again: no orphan at the service.
 */
async function registerEnabled(ctx: HookOwner, service: HooksClient, wanted: Wanted): Promise<Hook> {
	const hook = await registerOnce(ctx, service, wanted);
	try {
		await service.enable(hook.uuid);
	} catch (error) {
		try {
			await service.deleteIfThere(hook.uuid);
		} catch (cleanupError) {
			throw new NodeOperationError(ctx.getNode(), error as Error, {
				description: `The new hook could not be enabled, nor removed again (${(cleanupError as Error).message}). Delete hook ${hook.uuid} with the Stacks Hooks node before activating again.`,
			});
		}
		throw asNodeError(ctx.getNode(), error);
	}
	remember(ctx, { hookId: hook.uuid, webhookUrl: wanted.definition.action.url });
	return hook;
}

/**
 * A hook deleted at the service while the workflow stays active (the health check found it gone): the hook posting to
 * the same URL with the wanted definition is taken over and enabled if stopped (`enabledBecause`), else one is
 * registered and enabled again; either way it is remembered.
 */
export async function replaceDeleted(ctx: HookOwner, service: HooksClient, known: StoredHook, params: HookParameters): Promise<{ hook: Hook; adopted: boolean; enabledBecause?: string }> {
	const desired = await desiredDefinitions(ctx, service, known.webhookUrl, params);
	const adopted = await keepOneOf(service, known.webhookUrl, desired);
	if (!adopted) return { hook: await registerEnabled(ctx, service, desired), adopted: false };
	remember(ctx, { hookId: adopted.uuid, webhookUrl: known.webhookUrl });
	const why = await enableIfStopped(service, adopted);
	return { hook: adopted, adopted: true, ...(why && { enabledBecause: why }) };
}

export async function create(this: IHookFunctions): Promise<boolean> {
	return await inTurn(this, async () => {
		const sample = listeningSample(this);
		const service = await HooksClient.connect(this);
		const webhookUrl = webhookUrlOf(this);
		if (!isHttpsUrl(webhookUrl)) {
			throw new NodeOperationError(this.getNode(), `n8n's webhook URL (${webhookUrl}) is not HTTPS`, {
				description:
					'The service only posts to HTTPS addresses. Set WEBHOOK_URL to the public https:// address of this n8n (a reverse proxy with a certificate, or a tunnel) and restart n8n.',
			});
		}
		// Before the hook exists: an account without a secret gets one before anything is delivered.
		await keepSecret(this, service);
		const wanted = await desiredDefinitions(this, service, webhookUrl);
		const hook = await registerEnabled(this, service, wanted);
		await followEditsSinceRead(service, hook, wanted);
		noteReplacedAtActivation(this, hook);
		await whenListening(this, service, hook, sample);
		return true;
	});
}

/**
 * Deletes the remembered hook. When that one is already gone, or none is remembered, the hooks posting
 * to this node's own URL are deleted instead: n8n does not carry static data written while listening
 * for a test event to the end of listening, nor what the health check changed while the workflow ran
 * (it re-registers a hook deleted by hand under a new UUID, kept in memory only).
 */
export async function remove(this: IHookFunctions): Promise<boolean> {
	return await inTurn(this, async () => {
		try {
			const service = await HooksClient.connect(this);
			const known = stored(this);
			const gone = !known || !(await service.deleteIfThere(known.hookId));
			if (gone) await keepOneOf(service, known?.webhookUrl ?? webhookUrlOf(this), undefined);
			remember(this, undefined);
			return true;
		} finally {
			// Deactivated (or deleted): nothing of the node stays in this process. Listening for a test event ends here
			// too, and may end while the workflow is active, so it leaves the production entries alone.
			if (this.getMode() !== 'manual') forgetNode(this);
		}
	});
}
