/**
 * The service's endpoints as one caller uses them, bound once to its context and connection: the
 * trigger's lifecycle and its health check call the service through this, and read as what they ask
 * (`service.read(uuid)`), not how. The endpoints themselves are hookEndpoints.ts's and
 * secretEndpoints.ts's.
 */
import type { Definition, DefinitionUpdate, Hook } from '../schemas';
import type { Connection } from '../transport/connection';
import type { RequestContext } from '../transport/context';
import { type BlockRef, deleteHookIfThere, evaluateHook, hooksPostingTo, listHooks, readHook, registerHook, setHookEnabled, updateHook } from './hookEndpoints';
import { getSecret } from './secretEndpoints';

export interface Service {
	/** The connection it calls with (the credential as read, its network). */
	connection: Connection;
	/** The hook, or undefined when it is gone (404). */
	read(uuid: string): Promise<Hook | undefined>;
	/** All the account's hooks, oldest first. */
	list(): Promise<Hook[]>;
	/** The account's hooks posting to `url`, or to any URL ending with `{ path }`. */
	postingTo(url: string | { path: string }): Promise<Hook[]>;
	/** Registers a hook (never repeated by the transport: a lost answer may hide a hook the service made). */
	register(definition: Definition): Promise<Hook>;
	/** Changes part of a hook's definition in place (same UUID). */
	update(uuid: string, update: DefinitionUpdate): Promise<void>;
	/** Enables a disabled hook, or resumes an interrupted one (the same PATCH does both). */
	enable(uuid: string): Promise<void>;
	/** Deletes the hook; false when it was gone already (404). */
	deleteIfThere(uuid: string): Promise<boolean>;
	/** Runs the hook against one block; matches are posted to its webhook. */
	evaluate(uuid: string, block: BlockRef): Promise<void>;
	/** The account's current consumer secret; null when it has none. */
	secret(): Promise<string | null>;
}

export function serviceFor(ctx: RequestContext, connection: Connection): Service {
	const options = { connection };
	return {
		connection,
		read: async (uuid) => await readHook(ctx, uuid, options),
		list: async () => await listHooks(ctx, options),
		postingTo: async (url) => await hooksPostingTo(ctx, url, options),
		update: async (uuid, update) => void (await updateHook(ctx, uuid, update, options)),
		register: async (definition) => await registerHook(ctx, definition, options),
		enable: async (uuid) => await setHookEnabled(ctx, uuid, true, options),
		deleteIfThere: async (uuid) => await deleteHookIfThere(ctx, uuid, options),
		evaluate: async (uuid, block) => await evaluateHook(ctx, uuid, block, options),
		secret: async () => await getSecret(ctx, options),
	};
}
