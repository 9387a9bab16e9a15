import { hash, timingSafeEqual } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/**
 * The secret a delivery carries, in any of the forms the service is known to
 * use: `x-hook-consumer-secret` (the contract), `x-chainhook-consumer-secret`
 * and `Authorization: Bearer` (the public service's documentation).
 */
export function presentedSecrets(headers: IDataObject): string[] {
	const found: string[] = [];
	for (const name of ['x-hook-consumer-secret', 'x-chainhook-consumer-secret']) {
		const value = headers[name];
		if (typeof value === 'string' && value) found.push(value);
	}
	const authorization = headers.authorization;
	if (typeof authorization === 'string') {
		const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
		if (match) found.push(match[1]);
	}
	return found;
}

/** What the trigger keeps of a secret: its SHA-256, hex. The secret itself is not needed to check a delivery. */
export function secretDigest(secret: string): string {
	return hash('sha256', secret, 'hex');
}

/**
 * Secrets by their digest, in this process's memory only (the static data keeps digests alone): each
 * one a delivery or a read of the service proved to be a kept digest's. A delivery is then held
 * against the secret itself, in constant time, instead of hashing what it presents: inside a running
 * n8n a SHA-256 of one secret costs about 18 µs (its native code is cold between deliveries; 1 µs in a
 * tight loop), more than the rest of the check (npm run bench, part 1). A secret whose digest is not
 * known here is hashed as before.
 */
const secretsByDigest = new Map<string, string>();
/** Enough for every secret of every trigger in a process; the oldest goes first. */
const KNOWN_SECRETS = 64;

/** Remembers that `secret` is the secret whose SHA-256 is `sha256` (hex); the caller has checked it. */
export function knowSecret(sha256: string, secret: string): void {
	secretsByDigest.delete(sha256);
	secretsByDigest.set(sha256, secret);
	if (secretsByDigest.size > KNOWN_SECRETS) secretsByDigest.delete(secretsByDigest.keys().next().value as string);
}

/** The digest to keep of a secret read from the credential or the service, the secret remembered beside it. */
export function keptDigest(secret: string): string {
	const sha256 = secretDigest(secret);
	knowSecret(sha256, secret);
	return sha256;
}

/**
 * Whether `candidate` is `secret`: every UTF-16 unit of `secret` compared, and the lengths, with no
 * early exit, so the time depends on the length of `secret` alone, not on where a guess goes wrong.
 * Written out rather than crypto's timingSafeEqual, which needs both as Buffers of one length: the
 * native calls to encode and compare cost more in a running n8n than this whole loop (bench, part 1).
 * A unit read past the end of a shorter candidate is NaN, which `^` takes as 0.
 */
function sameSecret(candidate: string, secret: string): boolean {
	let difference = candidate.length ^ secret.length;
	for (let i = 0; i < secret.length; i++) difference |= candidate.charCodeAt(i) ^ secret.charCodeAt(i);
	return difference === 0;
}

/** The secrets one delivery presents (presentedSecrets), held against kept digests. */
export class PresentedSecrets {
	/** Their SHA-256, taken at most once per delivery, and only when a digest's secret is not known. */
	private digests?: Buffer[];

	constructor(private readonly secrets: string[]) {}

	/** Whether one of them is the secret whose SHA-256 is `sha256` (hex), compared in constant time. */
	match(sha256: string): boolean {
		let ok = false;
		const known = secretsByDigest.get(sha256);
		if (known !== undefined) {
			for (const candidate of this.secrets) if (sameSecret(candidate, known)) ok = true;
			return ok;
		}
		const want = Buffer.from(sha256, 'hex');
		if (want.length !== 32) return false;
		this.digests ??= this.secrets.map((secret) => hash('sha256', secret, 'buffer'));
		this.digests.forEach((digest, index) => {
			if (timingSafeEqual(want, digest)) {
				ok = true;
				knowSecret(sha256, this.secrets[index]);
			}
		});
		return ok;
	}
}
