/**
 * jest's globalTeardown: stops the run's shared n8n (test/support/n8n/shared.ts). Its owner may be jest's own
 * process, when jest runs one suite, and jest would then wait for it forever.
 */
import { stopSharedN8n } from './support/n8n/shared';

export default async function teardown(): Promise<void> {
	await stopSharedN8n();
}
