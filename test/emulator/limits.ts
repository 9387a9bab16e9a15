/** Rate limiting (fixed window per bucket) and injected faults for the next N API requests. */
import type { FaultOptions, RateLimit, RequestMatch } from './types';

/** Whether the request `method` `path` is one `match` picks (none given: every request). */
export function requestMatches(match: RequestMatch | undefined, method: string, path: string): boolean {
	const { method: wanted, path: part } = match ?? {};
	if (wanted !== undefined && wanted.toUpperCase() !== method.toUpperCase()) return false;
	return part instanceof RegExp ? part.test(path) : part === undefined || path.includes(part);
}

export interface RateDecision {
	limited: boolean;
	headers: Record<string, string>;
	/** Seconds until the window resets, at least 1. */
	secondsToReset: number;
}

export class RateLimiter {
	private readonly windows = new Map<string, { start: number; count: number }>();

	constructor(private readonly config: () => RateLimit | null) {}

	/** Counts one request against the bucket; null when rate limiting is off. */
	take(bucket: string, now: number): RateDecision | null {
		const limit = this.config();
		if (!limit) return null;
		let window = this.windows.get(bucket);
		if (!window || now >= window.start + limit.windowMs) this.windows.set(bucket, (window = { start: now, count: 0 }));
		window.count += 1;
		const resetAt = window.start + limit.windowMs;
		return {
			limited: window.count > limit.limit,
			headers: {
				'ratelimit-limit': String(limit.limit),
				'ratelimit-remaining': String(Math.max(0, limit.limit - window.count)),
				'ratelimit-reset': String(Math.ceil(resetAt / 1000)),
			},
			secondsToReset: Math.max(1, Math.ceil((resetAt - now) / 1000)),
		};
	}

	clear(): void {
		this.windows.clear();
	}
}

export interface Fault extends FaultOptions {
	/** Not used when the answer is dropped. */
	status: number;
}

export class Faults {
	private pending: { remaining: number; skip: number; fault: Fault } | null = null;

	/** Replaces whatever was armed before. */
	arm(count: number, fault: Fault): void {
		if (!Number.isInteger(count) || count < 0) throw new Error('count must be a non-negative integer');
		if (fault.drop === undefined && (!Number.isInteger(fault.status) || fault.status < 100 || fault.status > 599)) {
			throw new Error('status must be an HTTP status code');
		}
		if (fault.skip !== undefined && !(Number.isInteger(fault.skip) && fault.skip >= 0)) throw new Error('skip must be a non-negative integer');
		this.pending = count > 0 ? { remaining: count, skip: fault.skip ?? 0, fault } : null;
	}

	/** The fault for this request, if one is armed and matches it. */
	take(request: { method: string; path: string }): Fault | null {
		if (!this.pending) return null;
		const { fault } = this.pending;
		if (!requestMatches(fault.match, request.method, request.path)) return null;
		if (this.pending.skip > 0) {
			this.pending.skip -= 1;
			return null;
		}
		if (--this.pending.remaining === 0) this.pending = null;
		return fault;
	}

	clear(): void {
		this.pending = null;
	}
}
