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
 * The SHA-256 of each presented secret, taken once per delivery however many kept digests it is
 * held against (a delivery with a wrong secret is held against two). Node's one-shot `hash` (Node
 * 20.12 and later): no Hash object per secret.
 */
export function presentedDigests(presented: string[]): Buffer[] {
	return presented.map((secret) => hash('sha256', secret, 'buffer'));
}

/**
 * Whether one of the presented digests is the kept one, compared in constant
 * time: neither the content nor the length of the secret shows in the timing.
 */
export function matchesDigest(sha256: string, presented: Buffer[]): boolean {
	const want = Buffer.from(sha256, 'hex');
	if (want.length !== 32) return false;
	let ok = false;
	for (const candidate of presented) {
		if (timingSafeEqual(want, candidate)) ok = true;
	}
	return ok;
}
