/**
 * A loop over thousands of a run's items (a 10,000-address import) gives n8n's event loop back every
 * 50 ms. Reading a parameter per item is synchronous (an expression evaluated, the description looked
 * up), and n8n pings its database every 2 s with a 5 s time-out: a run that held the event loop for
 * longer made n8n take the database for lost and answer 503 "Database is not ready!" to every request
 * (seen with n8n 2.41.3 on SQLite, 10,000 items, a loaded machine). `sleep` is n8n-workflow's
 * (a timer: I/O callbacks run before it ends), the one n8n Cloud allows.
 */
import { sleep } from 'n8n-workflow';

const BREATHE_EVERY_MS = 50;

export class Breather {
	private since = Date.now();

	/** Resolves at once, or after a pause of the event loop once 50 ms have gone since the last. */
	async breathe(): Promise<void> {
		if (Date.now() - this.since < BREATHE_EVERY_MS) return;
		await sleep(0);
		this.since = Date.now();
	}
}
