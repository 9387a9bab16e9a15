import { createHash, timingSafeEqual } from 'crypto';
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

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** What the trigger keeps of a secret: its SHA-256, hex. The secret itself is not needed to check a delivery. */
export function secretDigest(secret: string): string {
	return digest(secret).toString('hex');
}

/**
 * Whether one of the presented secrets has the kept digest, compared in constant
 * time: neither the content nor the length of the secret shows in the timing.
 */
export function matchesDigest(sha256: string, presented: string[]): boolean {
	const want = Buffer.from(sha256, 'hex');
	if (want.length !== 32) return false;
	let ok = false;
	for (const candidate of presented) {
		if (timingSafeEqual(want, digest(candidate))) ok = true;
	}
	return ok;
}
