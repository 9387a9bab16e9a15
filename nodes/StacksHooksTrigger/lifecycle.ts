/**
 * The trigger's hook at the service, from activation to deactivation: one
 * hook per webhook URL, enabled, remembered by UUID in the node's static data,
 * replaced (not duplicated) when the parameters change, adopted (not
 * duplicated) when it exists but was forgotten, and deleted by UUID on
 * deactivation. It never deletes a hook it did not register: only hooks
 * whose action URL is this node's own webhook URL are ever touched.
 */
import type { IDataObject, IHookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { buildDefinition } from '../shared/definition';
import { deleteHook, getHook, listHooks, registerHook, setHookEnabled } from '../shared/api/hookEndpoints';
import { isHttpsUrl } from '../shared/constants';
import type { Definition, Hook } from '../shared/schemas';
import { type Connection, getConnection } from '../shared/transport/connection';
import { asNodeError, isNotFound } from '../shared/transport/errors';
import { keepSecret } from './accountSecret';

interface StoredHook {
	hookId: string;
	webhookUrl: string;
}

/** Test listening ("Listen for test event") and activation each keep their own hook. */
function slotName(ctx: IHookFunctions): 'test' | 'production' {
	return ctx.getMode() === 'manual' ? 'test' : 'production';
}

function stored(ctx: IHookFunctions): StoredHook | undefined {
	const data = ctx.getWorkflowStaticData('node');
	const slot = data[slotName(ctx)] as IDataObject | undefined;
	return slot && typeof slot.hookId === 'string' ? (slot as unknown as StoredHook) : undefined;
}

function remember(ctx: IHookFunctions, hook: StoredHook | undefined): void {
	const data = ctx.getWorkflowStaticData('node');
	if (hook) data[slotName(ctx)] = { ...hook };
	else delete data[slotName(ctx)];
}

export function defaultHookName(ctx: IHookFunctions): string {
	const workflow = ctx.getWorkflow();
	return `n8n: ${workflow.name ?? 'workflow'} (${workflow.id ?? 'unsaved'})${slotName(ctx) === 'test' ? ' [test]' : ''}`;
}

function desiredDefinition(ctx: IHookFunctions, connection: Connection, webhookUrl: string): Definition {
	const name = (ctx.getNodeParameter('hookName', '') as string).trim();
	return buildDefinition(ctx.getNode(), {
		name: name || defaultHookName(ctx),
		webhookUrl,
		network: connection.network,
		events: ctx.getNodeParameter('events', {}) as IDataObject,
		options: ctx.getNodeParameter('options', {}) as IDataObject,
	});
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

function webhookUrlOf(ctx: IHookFunctions): string {
	return ctx.getNodeWebhookUrl('default') ?? '';
}

async function ensureEnabled(ctx: IHookFunctions, hook: Hook, connection: Connection): Promise<void> {
	if (!hook.status.enabled) await setHookEnabled(ctx, hook.uuid, true, { connection });
}

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	const connection = await getConnection(this);
	const webhookUrl = webhookUrlOf(this);
	const desired = isHttpsUrl(webhookUrl) ? desiredDefinition(this, connection, webhookUrl) : undefined;

	const known = stored(this);
	if (known) {
		let hook: Hook | undefined;
		try {
			hook = await getHook(this, known.hookId, { connection });
		} catch (error) {
			if (!isNotFound(error)) throw asNodeError(this.getNode(), error);
		}
		if (hook && desired && sameHook(hook, desired)) {
			await keepSecret(this, connection);
			await ensureEnabled(this, hook, connection);
			return true;
		}
		// Gone, or registered with other parameters or for another URL: replace it, leaving nothing behind.
		if (hook) await deleteQuietlyIfGone(this, hook.uuid, connection);
		remember(this, undefined);
	}
	if (!desired) return false;

	// Hooks posting to this very URL were registered by this node (n8n makes the URL unique to it)
	// and then forgotten, e.g. with lost static data: adopt the one that fits, remove the stale rest.
	const mine = (await listHooks(this, { connection })).filter((hook) => hook.definition.action.url === webhookUrl);
	const keep = mine.find((hook) => sameHook(hook, desired));
	for (const stale of mine) {
		if (stale !== keep) await deleteQuietlyIfGone(this, stale.uuid, connection);
	}
	if (!keep) return false;
	await keepSecret(this, connection);
	await ensureEnabled(this, keep, connection);
	remember(this, { hookId: keep.uuid, webhookUrl });
	return true;
}

async function deleteQuietlyIfGone(ctx: IHookFunctions, uuid: string, connection: Connection): Promise<void> {
	try {
		await deleteHook(ctx, uuid, { connection });
	} catch (error) {
		if (!isNotFound(error)) throw asNodeError(ctx.getNode(), error);
	}
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
async function registerOnce(ctx: IHookFunctions, desired: Definition, webhookUrl: string, connection: Connection): Promise<Hook> {
	try {
		return await registerHook(ctx, desired, { connection });
	} catch (error) {
		if (refusedByService(error)) throw asNodeError(ctx.getNode(), error);
		let registered: Hook | undefined;
		try {
			const mine = (await listHooks(ctx, { connection })).filter((hook) => hook.definition.action.url === webhookUrl);
			registered = mine.find((hook) => sameHook(hook, desired));
		} catch {
			throw asNodeError(ctx.getNode(), error);
		}
		return registered ?? (await registerHook(ctx, desired, { connection }));
	}
}

export async function create(this: IHookFunctions): Promise<boolean> {
	const connection = await getConnection(this);
	const webhookUrl = webhookUrlOf(this);
	if (!isHttpsUrl(webhookUrl)) {
		throw new NodeOperationError(this.getNode(), `n8n's webhook URL (${webhookUrl}) is not HTTPS`, {
			description:
				'The service only posts to HTTPS addresses. Set WEBHOOK_URL to the public https:// address of this n8n (a reverse proxy with a certificate, or a tunnel) and restart n8n.',
		});
	}
	// Before the hook exists: an account without a secret gets one before anything is delivered.
	await keepSecret(this, connection);
	const hook = await registerOnce(this, desiredDefinition(this, connection, webhookUrl), webhookUrl, connection);
	try {
		await setHookEnabled(this, hook.uuid, true, { connection });
	} catch (error) {
		// A registered hook that cannot be enabled is removed again: no orphan at the service.
		try {
			await deleteQuietlyIfGone(this, hook.uuid, connection);
		} catch (cleanupError) {
			throw new NodeOperationError(this.getNode(), error as Error, {
				description: `Enabling the new hook failed, and removing it failed too (${(cleanupError as Error).message}). Delete hook ${hook.uuid} with the Stacks Hooks node before activating again.`,
			});
		}
		throw asNodeError(this.getNode(), error);
	}
	remember(this, { hookId: hook.uuid, webhookUrl });
	return true;
}

export async function remove(this: IHookFunctions): Promise<boolean> {
	const connection = await getConnection(this);
	const known = stored(this);
	if (known) {
		await deleteQuietlyIfGone(this, known.hookId, connection);
	} else {
		// No UUID kept: n8n does not carry static data written while listening for a test event
		// to the end of listening. The hooks posting to this node's own URL are its own.
		const webhookUrl = webhookUrlOf(this);
		const mine = (await listHooks(this, { connection })).filter((hook) => hook.definition.action.url === webhookUrl);
		for (const hook of mine) await deleteQuietlyIfGone(this, hook.uuid, connection);
	}
	remember(this, undefined);
	return true;
}
