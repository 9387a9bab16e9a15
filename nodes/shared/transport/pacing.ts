/**
 * Pacing from the rate-limit headers: while the window's budget lasts,
 * requests go straight out; when it is spent, the next request waits for the
 * reset instead of earning a 429. Shared by all executions in this process,
 * per account, because the budget is the account's.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/** A holder that has not asked for its share this long has stopped catching up (its trigger closed): forgotten. */
const FORGET_WAITING_MS = 2 * 60_000;

class Pacer {
	private remaining: number | undefined;

	/** The window's whole budget (`ratelimit-limit`), when the service says it. */
	private limit: number | undefined;

	private resetAt = 0;

	private pausedUntil = 0;

	/** Work that can wait and wants requests now (each trigger catching up), with when it last said so. */
	private readonly waiting = new Map<string, number>();

	async acquire(): Promise<void> {
		for (;;) {
			const now = Date.now();
			if (this.pausedUntil > now) {
				await sleep(this.pausedUntil - now);
				continue;
			}
			if (this.remaining !== undefined && this.remaining <= 0) {
				if (this.resetAt > now) {
					await sleep(this.resetAt - now + 25);
					continue;
				}
				this.remaining = undefined;
			}
			break;
		}
		if (this.remaining !== undefined) this.remaining -= 1;
	}

	/**
	 * How many requests work that can wait (the trigger's catch-up) may send now: what the window has left beyond the
	 * half kept for everything else (activations, the action node), and when the window resets. Unknown budget: no bound.
	 */
	spare(): { requests: number; resetInMs: number } {
		const resetInMs = Math.max(0, this.resetAt - Date.now());
		if (this.remaining === undefined || this.limit === undefined || resetInMs === 0) return { requests: Number.POSITIVE_INFINITY, resetInMs };
		return { requests: Math.max(0, this.remaining - Math.ceil(this.limit / 2)), resetInMs };
	}

	/**
	 * The part of spare() that `holder` (one trigger's catch-up) may send now, when it `wants` some: an equal share among
	 * every holder that wanted some lately, so that no hook of the account waits behind another's backlog. Each takes its
	 * share when its check comes; what one leaves is there for the next. Unknown budget: no bound.
	 */
	share(holder: string, wants: number): { requests: number; resetInMs: number } {
		const now = Date.now();
		if (wants > 0) this.waiting.set(holder, now);
		else this.waiting.delete(holder);
		for (const [other, at] of this.waiting) if (now - at > FORGET_WAITING_MS) this.waiting.delete(other);
		const spare = this.spare();
		if (wants <= 0 || !Number.isFinite(spare.requests)) return spare;
		return { requests: Math.ceil(spare.requests / Math.max(1, this.waiting.size)), resetInMs: spare.resetInMs };
	}

	update(headers: IDataObject): void {
		const remaining = Number(headers['ratelimit-remaining']);
		const reset = Number(headers['ratelimit-reset']);
		const limit = Number(headers['ratelimit-limit']);
		if (Number.isFinite(limit) && limit > 0) this.limit = limit;
		if (!Number.isFinite(remaining) || !Number.isFinite(reset)) return;
		// The contract sends a Unix timestamp; a small number is read as seconds from now.
		const resetAt = reset > 1e9 ? reset * 1000 : Date.now() + reset * 1000;
		if (this.remaining === undefined || resetAt > this.resetAt + 500) {
			this.resetAt = resetAt;
			this.remaining = remaining;
		} else {
			// Same window: answers to concurrent requests arrive out of order; trust the lowest.
			this.remaining = Math.min(this.remaining, remaining);
		}
	}

	/** After a 429: every request of the account waits `retry-after` (or the back-off). */
	pause(ms: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, Date.now() + ms);
	}
}

const pacers = new Map<string, Pacer>();

export function pacerFor(accountKey: string): Pacer {
	let pacer = pacers.get(accountKey);
	if (!pacer) {
		pacer = new Pacer();
		pacers.set(accountKey, pacer);
	}
	return pacer;
}

/** Seconds to wait before retry `attempt` (0-based): the service's `retry-after` when given, else 2^attempt. */
export function retryDelaySeconds(retryAfter: unknown, attempt: number): number {
	if (typeof retryAfter === 'string' && retryAfter.trim() !== '') {
		const seconds = Number(retryAfter);
		if (Number.isFinite(seconds) && seconds >= 0) return seconds;
		const date = Date.parse(retryAfter);
		if (!Number.isNaN(date)) return Math.max(0, (date - Date.now()) / 1000);
	}
	return 2 ** attempt;
}
