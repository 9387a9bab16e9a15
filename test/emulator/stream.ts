/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Each hook's deliveries as a stream service sends them (test/emulator/README.md says what is
 * assumed): one at a time and in order per hook, the next POSTed only once the one before is
 * settled (answered 2xx, or given up); a failed attempt (a non-2xx answer, a network error, no
 * answer in time, or an answer the service "lost") sent again after the configured back-off; a hook
 * the service interrupts meanwhile drops what it had queued; a delivery the service drops without a
 * word (a fault) is never POSTed. Hooks do not wait for each other.
 */
import { setTimeout as delay } from 'node:timers/promises';

import type { PostResult } from './delivery';
import { isDelivering } from './store';
import type { DeliveryPayload, DeliveryReport, HookRecord } from './types';

export interface StreamSettings {
	/** Waits before each retry: `[a, b]` means up to two retries, after a then b ms. */
	retryDelaysMs: readonly number[];
}

/** What the stream needs from the server: the POST, the bookkeeping of outcomes, the lost-answer fault. */
export interface StreamPorts {
	post(hook: HookRecord, payload: DeliveryPayload): Promise<PostResult>;
	/** Whether the answer to this attempt is to be treated as lost (a fault armed for the hook). */
	takeLostAnswer(hook: HookRecord): boolean;
	/** Whether this delivery is to be dropped without a word (a fault armed for the hook): counted, never POSTed. */
	takeSilentDrop(hook: HookRecord, payload: DeliveryPayload): boolean;
	/** Records one attempt's outcome (counts failures in a row, may interrupt the hook). */
	recordAttempt(hook: HookRecord, delivered: boolean): void;
	report(report: DeliveryReport): void;
	settings(): StreamSettings;
}

export type Meta = Pick<DeliveryReport, 'blockHeight' | 'direction'>;

export class HookStreams {
	/** Per hook: the tail of its queue, and how many times it was interrupted (queued work of an older epoch is dropped). */
	private readonly tails = new Map<string, Promise<unknown>>();
	private readonly epochs = new WeakMap<HookRecord, number>();

	constructor(private readonly ports: StreamPorts) {}

	/**
	 * Queues the payload on the hook's stream; resolves with the final report of its delivery. `evaluation`: asked
	 * for through the API (evaluate), so sent whether or not the hook streams blocks (a disabled hook too).
	 */
	enqueue(hook: HookRecord, payload: DeliveryPayload, meta: Meta, evaluation = false): Promise<DeliveryReport> {
		const epoch = this.epochs.get(hook) ?? 0;
		const previous = this.tails.get(hook.uuid) ?? Promise.resolve();
		const run = previous.then(() => this.send(hook, payload, meta, evaluation ? undefined : epoch));
		this.tails.set(
			hook.uuid,
			run.catch(() => undefined),
		);
		return run;
	}

	/** Resolves once every stream is drained (what is queued meanwhile included). */
	async drained(): Promise<void> {
		for (;;) {
			const tails = [...this.tails.values()];
			await Promise.all(tails);
			if ([...this.tails.values()].every((tail, i) => tail === tails[i]) && this.tails.size === tails.length) return;
		}
	}

	clear(): void {
		this.tails.clear();
	}

	/** `epoch` undefined: an evaluation, sent whatever the hook's state. */
	private async send(hook: HookRecord, payload: DeliveryPayload, meta: Meta, epoch: number | undefined): Promise<DeliveryReport> {
		const delays = this.ports.settings().retryDelaysMs;
		if (this.ports.takeSilentDrop(hook, payload)) {
			// The service's silent failure (hirosystems/chainhook#739): matched and counted, never sent, no error, no retry.
			const silent: DeliveryReport = { hookUuid: hook.uuid, url: hook.definition.action.url, status: null, error: 'Dropped silently (injected)', payload, at: Date.now(), ...meta, attempt: 1, dropped: true, silent: true };
			this.ports.report(silent);
			return silent;
		}
		for (let attempt = 1; ; attempt++) {
			// An expired hook still sends what it matched before it expired (the occurrence that expired it included).
			if (epoch !== undefined && ((this.epochs.get(hook) ?? 0) !== epoch || (!isDelivering(hook) && hook.status.status !== 'expired'))) {
				// The service gave up on the hook (interrupted, disabled, expired): what it had queued is not sent.
				const dropped: DeliveryReport = { hookUuid: hook.uuid, url: hook.definition.action.url, status: null, error: 'Dropped: the hook stopped delivering', payload, at: Date.now(), ...meta, attempt, dropped: true };
				this.ports.report(dropped);
				return dropped;
			}
			const result = await this.ports.post(hook, payload);
			const answerLost = result.error === undefined && this.ports.takeLostAnswer(hook);
			const report: DeliveryReport = {
				hookUuid: hook.uuid,
				url: hook.definition.action.url,
				...result,
				...(answerLost ? { error: 'Answer lost on its way back (injected)', answerLost: true } : {}),
				payload,
				at: Date.now(),
				...meta,
				attempt,
			};
			this.ports.report(report);
			const delivered = report.error === undefined;
			const wasDelivering = isDelivering(hook);
			this.ports.recordAttempt(hook, delivered);
			if (delivered) return report;
			if (wasDelivering && !isDelivering(hook)) this.epochs.set(hook, (this.epochs.get(hook) ?? 0) + 1);
			if (attempt > delays.length || (epoch !== undefined && !isDelivering(hook))) return report;
			await delay(delays[attempt - 1]);
		}
	}
}
