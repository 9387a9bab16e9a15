/**
 * The service as both nodes call it. A client is made for one n8n context and reads the credential once.
 * Each method sends its request only when it is called, through the one door to the service
 * (../transport/request.ts).
 *
 * The action node makes one client per input item, so that an error names the item:
 *
 *     const client = await HooksClient.connect(this, { itemIndex });
 *     const hook = await client.get(uuid);
 *
 * The trigger makes one per activation, per delivery that needs the service, and per health check.
 */
import { createHash } from 'crypto';
import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

import { API_KEY_HEADER, CREDENTIAL_TYPE, MAX_PAGE_SIZE, type Network, NETWORKS } from '../constants';
import {
	type ApiStatus,
	apiStatusSchema,
	bulkResultSchema,
	currentSecretSchema,
	type Definition,
	type DefinitionUpdate,
	type Hook,
	type HookPage,
	hookPageSchema,
	hookSchema,
	secretSchema,
} from '../schemas';
import type { RequestContext } from '../transport/context';
import { asNodeError, isNotFound } from '../transport/errors';
import { type ApiRequest, apiRequest, type Connection } from '../transport/request';

/** A block, by height or by index block hash. */
export type BlockRef = { block_height: number } | { index_block_hash: string };

/** An answer that is a hook, or anything else taken as no hook. */
const hookOrNothing = z.union([hookSchema, z.unknown().transform(() => undefined)]);

/** Pages after the first are fetched this many at a time; the transport's pacing keeps them within the rate limit. */
const PAGE_CONCURRENCY = 10;

/** The Stacks Hooks API credential's fields, typed. The client is the one reader of the credential. */
interface CredentialFields {
	apiKey: string;
	network: Network;
	/** As typed, trimmed; empty for the network's public service. */
	baseUrl: string;
	consumerSecret: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function readCredential(data: ICredentialDataDecryptedObject): CredentialFields {
	return {
		apiKey: text(data.apiKey),
		network: data.network === 'mainnet' ? 'mainnet' : 'testnet',
		baseUrl: text(data.baseUrl).trim(),
		consumerSecret: text(data.consumerSecret),
	};
}

/**
 * Where the calls go and for which account. `background`: for requests the trigger sends on its own
 * schedule, outside any n8n run (the health check). n8n 2.x evaluates a credential's `authenticate`
 * expressions in a sandbox that only a run holds ("No bridge acquired for this context"), so these
 * requests carry the API key header themselves.
 */
async function connectionOf(ctx: RequestContext, background: boolean): Promise<Connection> {
	const fields = readCredential(await ctx.getCredentials(CREDENTIAL_TYPE));
	const baseUrl = (fields.baseUrl || NETWORKS[fields.network].baseUrl).replace(/\/+$/, '');
	if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The credential's 'Base URL' (${baseUrl}) is not an http(s) address`,
			{ description: `Leave 'Base URL' empty to use the public service, or set a full address such as ${NETWORKS.testnet.baseUrl}.` },
		);
	}
	return {
		baseUrl,
		network: fields.network,
		consumerSecret: fields.consumerSecret,
		accountKey: `${baseUrl}#${createHash('sha256').update(fields.apiKey).digest('hex').slice(0, 16)}`,
		...(background && { authHeaders: { [API_KEY_HEADER]: fields.apiKey } }),
	};
}

export interface ConnectOptions {
	/** The input item the calls run for: its errors name it. */
	itemIndex?: number;
	/**
	 * For calls outside any n8n run, such as the health check. The requests then carry the API key
	 * themselves (see connectionOf).
	 */
	background?: boolean;
}

export class HooksClient {
	private constructor(
		private readonly ctx: RequestContext,
		/** Where the calls go and for which account, as read from the credential. */
		readonly connection: Connection,
		private readonly itemIndex?: number,
	) {}

	/** A client for `ctx`, with the credential read now. */
	static async connect(ctx: RequestContext, options: ConnectOptions = {}): Promise<HooksClient> {
		return new HooksClient(ctx, await connectionOf(ctx, options.background === true), options.itemIndex);
	}

	private async send<T = undefined>(request: Omit<ApiRequest<T>, 'connection' | 'itemIndex'>): Promise<T> {
		return await apiRequest(this.ctx, { ...request, connection: this.connection, itemIndex: this.itemIndex });
	}

	/** The service's status and version, from its base address (the official client's getStatus()). */
	async status(): Promise<ApiStatus> {
		return await this.send({ method: 'GET', path: '', schema: apiStatusSchema });
	}

	/** Registers a hook. The transport never repeats this request: a lost answer may hide a hook the service made. */
	async register(definition: Definition): Promise<Hook> {
		return await this.send({ method: 'POST', path: '/me/', body: definition, schema: hookSchema });
	}

	/** The hook; a 404 is an error that names it. */
	async get(uuid: string): Promise<Hook> {
		return await this.send({ method: 'GET', path: `/me/${uuid}`, schema: hookSchema, hookId: uuid });
	}

	/** The hook, or undefined when the service says it is gone (404). */
	async read(uuid: string): Promise<Hook | undefined> {
		try {
			return await this.get(uuid);
		} catch (error) {
			if (isNotFound(error)) return undefined;
			throw asNodeError(this.ctx.getNode(), error);
		}
	}

	/**
	 * Changes part of a hook's definition in place, under the same UUID. Answers the hook as the service
	 * answered it (the official client's `updateChainhook` returns it), or undefined when the answer is
	 * not a hook: the contract does not show it.
	 */
	async update(uuid: string, update: DefinitionUpdate): Promise<Hook | undefined> {
		return await this.send({ method: 'PATCH', path: `/me/${uuid}`, body: update, hookId: uuid, schema: hookOrNothing });
	}

	/** Enables or disables the hook. Enabling also resumes a hook the service interrupted. */
	async setEnabled(uuid: string, enabled: boolean): Promise<void> {
		await this.send({ method: 'PATCH', path: `/me/${uuid}/enabled`, body: { enabled }, hookId: uuid });
	}

	/** Enables a disabled hook, or resumes an interrupted one. */
	async enable(uuid: string): Promise<void> {
		await this.setEnabled(uuid, true);
	}

	/** Enables or disables every hook that matches `filters`, already validated. Answers the UUIDs changed. */
	async setManyEnabled(enabled: boolean, filters: IDataObject): Promise<string[]> {
		const result = await this.send({ method: 'PATCH', path: '/me/enabled', body: { enabled, filters }, schema: bulkResultSchema });
		return result.updated_uuids;
	}

	/** Asks the service to run the hook against one block. It posts the matches to the hook's webhook. */
	async evaluate(uuid: string, block: BlockRef): Promise<void> {
		await this.send({ method: 'POST', path: `/me/${uuid}/evaluate`, body: block, hookId: uuid });
	}

	/** Deletes the hook; a 404 is an error that names it. */
	async delete(uuid: string): Promise<void> {
		await this.send({ method: 'DELETE', path: `/me/${uuid}`, hookId: uuid });
	}

	/** Deletes the hook. Answers false when the service says it was gone already (404). */
	async deleteIfThere(uuid: string): Promise<boolean> {
		try {
			await this.delete(uuid);
			return true;
		} catch (error) {
			if (isNotFound(error)) return false;
			throw asNodeError(this.ctx.getNode(), error);
		}
	}

	/** One page of the account's hooks, oldest first. */
	async page(offset: number, limit: number): Promise<HookPage> {
		return await this.send({ method: 'GET', path: '/me/', qs: { limit, offset }, schema: hookPageSchema });
	}

	/**
	 * Up to `wanted` of the account's hooks from `offset` on, oldest first. The first page tells the
	 * total, so the pages after it are fetched several at a time.
	 */
	async list({ offset = 0, wanted = Infinity }: { offset?: number; wanted?: number } = {}): Promise<Hook[]> {
		const first = await this.page(offset, Math.min(MAX_PAGE_SIZE, wanted));
		const end = Math.min(first.total, offset + wanted);
		const offsets: number[] = [];
		for (let next = offset + first.results.length; first.results.length > 0 && next < end; next += MAX_PAGE_SIZE) offsets.push(next);
		const rest: Hook[][] = [];
		for (let start = 0; start < offsets.length; start += PAGE_CONCURRENCY) {
			const batch = offsets.slice(start, start + PAGE_CONCURRENCY);
			rest.push(...(await Promise.all(batch.map(async (pageOffset) => (await this.page(pageOffset, Math.min(MAX_PAGE_SIZE, end - pageOffset))).results))));
		}
		return [first.results, ...rest].flat().slice(0, wanted === Infinity ? undefined : wanted);
	}

	/**
	 * The account's hooks that post to `url`, or to any URL ending with `{ path }`: n8n's webhook path of
	 * a node, whatever the base URL. n8n makes a node's webhook URL unique to it, so these are its own.
	 */
	async postingTo(url: string | { path: string }): Promise<Hook[]> {
		const posting = typeof url === 'string' ? (at: string) => at === url : (at: string) => at.endsWith(url.path);
		return (await this.list()).filter((hook) => posting(hook.definition.action.url ?? ''));
	}

	/** The account's current consumer secret, which the service sends with every delivery; null when it has none. */
	async secret(): Promise<string | null> {
		return (await this.send({ method: 'GET', path: '/me/secret', schema: currentSecretSchema })).secret;
	}

	/**
	 * The secret the trigger checks deliveries against: the credential's Consumer Secret when it is filled in,
	 * else the account's current one. The account's is created only when it has none: an existing secret is
	 * never rotated here, so its other receivers keep working.
	 */
	async deliverySecret(): Promise<string> {
		if (this.connection.consumerSecret) return this.connection.consumerSecret;
		return (await this.secret()) ?? (await this.rotateSecret());
	}

	/** Replaces the account's consumer secret, or creates the first one. Answers the new one. */
	async rotateSecret(): Promise<string> {
		return (await this.send({ method: 'POST', path: '/me/secret', schema: secretSchema })).secret;
	}

	/** Removes the account's consumer secret: deliveries then carry none. */
	async deleteSecret(): Promise<void> {
		await this.send({ method: 'DELETE', path: '/me/secret' });
	}
}
