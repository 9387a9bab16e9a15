/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The set-up every real-n8n suite shares: the packed package installed into a
 * fresh user folder as n8n installs community packages, n8n over HTTPS, the
 * emulator trusting n8n's certificate for its deliveries, and a Stacks Hooks
 * API credential pointing at the emulator (API key and network only, unless told).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { type Emulator, type EmulatorOptions, startEmulator } from '../../emulator';
import { type N8nInstance, startN8n, type StartOptions } from './instance';
import { installPackage, packPackage } from './package';

export interface Stack {
	n8n: N8nInstance;
	emu: Emulator;
	credential: { id: string; name: string };
	userFolder: string;
	/** Stops n8n and the emulator and removes the user folder. */
	close(): Promise<void>;
}

export interface EmulatorAccountOptions {
	apiKey: string;
	/** The account's consumer secret at the emulator. */
	consumerSecret: string;
	/** The credential's Consumer Secret field. Default: empty, as users set it up (the trigger reads the account's). */
	credentialSecret?: string;
	credentialName: string;
	emulator?: EmulatorOptions;
}

/** The emulator with one account, trusting `n8n`'s certificate for its deliveries, and a credential in `n8n` for that account (queue.ts's stack too). */
export async function emulatorWithCredential(n8n: Pick<N8nInstance, 'certificate' | 'api'>, opts: EmulatorAccountOptions): Promise<{ emu: Emulator; credential: { id: string; name: string } }> {
	const emu = await startEmulator({
		accounts: [{ apiKey: opts.apiKey, consumerSecret: opts.consumerSecret }],
		deliveryCa: n8n.certificate,
		...opts.emulator,
	});
	try {
		const created = await n8n.api.createCredential({
			name: opts.credentialName,
			type: 'stacksHooksApi',
			data: { apiKey: opts.apiKey, network: 'testnet', baseUrl: emu.url, ...(opts.credentialSecret && { consumerSecret: opts.credentialSecret }) },
		});
		return { emu, credential: { id: created.id, name: created.name } };
	} catch (error) {
		await emu.close();
		throw error;
	}
}

/**
 * A public webhook address that n8n cannot reach from inside (behind an ingress, no hairpin NAT, split DNS), which the
 * emulator reaches (routeDeliveries): a loopback port nothing listens on, so that n8n's call is refused at once and
 * nothing leaves the machine, not even a DNS query.
 */
export const UNREACHABLE_PUBLIC_URL = 'https://127.0.0.1:1/';

/** n8n over HTTPS on a new user folder, with the packed package installed into it as n8n installs community packages. */
export async function startN8nWithPackage(opts: StartOptions = {}): Promise<N8nInstance> {
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-n8n-'));
	await installPackage(userFolder, await packPackage());
	return startN8n({ https: true, ...opts, userFolder });
}

export async function startStack(opts: EmulatorAccountOptions & { n8n?: StartOptions; publicUrl?: string }): Promise<Stack> {
	const env = { ...opts.n8n?.env, ...(opts.publicUrl && { N8N_WEBHOOK_URL: opts.publicUrl }) };
	const n8n = await startN8nWithPackage({ ...opts.n8n, env });
	const { userFolder } = n8n;
	const { emu, credential } = await emulatorWithCredential(n8n, opts);
	if (opts.publicUrl) emu.routeDeliveries(opts.publicUrl, n8n.baseUrl);
	return {
		n8n,
		emu,
		credential,
		userFolder,
		async close() {
			await n8n.stop();
			await emu.close();
			fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
}
