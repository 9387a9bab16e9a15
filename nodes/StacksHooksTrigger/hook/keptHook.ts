/**
 * Which hook at the service is the node's own: its UUID and the URL it posts to, kept in the workflow's
 * static data, one slot for activation and one for listening for a test event. Written by the lifecycle
 * (lifecycle.ts) and the health check's repair (../healthCheck/repair.ts); read by the lifecycle, and by the health
 * check when it opens (../healthCheck/check.ts), which hands it on to its steps.
 */
import type { IDataObject, IHookFunctions, ITriggerFunctions } from 'n8n-workflow';

/** The contexts that handle the node's hook: its webhook methods, and its trigger() (the health check). */
export type HookOwner = IHookFunctions | ITriggerFunctions;

export interface StoredHook {
	hookId: string;
	webhookUrl: string;
}

/** Test listening ("Listen for test event") and activation each keep their own hook. */
export function slotName(ctx: HookOwner): 'test' | 'production' {
	return ctx.getMode() === 'manual' ? 'test' : 'production';
}

export function stored(ctx: HookOwner): StoredHook | undefined {
	const data = ctx.getWorkflowStaticData('node');
	const slot = data[slotName(ctx)] as IDataObject | undefined;
	return slot && typeof slot.hookId === 'string' ? (slot as unknown as StoredHook) : undefined;
}

export function remember(ctx: HookOwner, hook: StoredHook | undefined): void {
	const data = ctx.getWorkflowStaticData('node');
	if (hook) data[slotName(ctx)] = { ...hook };
	else delete data[slotName(ctx)];
}
