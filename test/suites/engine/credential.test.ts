/**
 * The credential's Test button and the nodes build the service's address in
 * two places (an n8n expression in the credential, the transport's
 * connection in code) from the same facts: prove they agree.
 */
import { testCredential } from '../../support/engine/harness';
import { API_KEY, credentialTypes, emu, runAction, useEmulator } from '../../support/engine/fixtures';
import { NETWORKS } from '../../../nodes/shared/constants';

useEmulator();

describe('the credential test and the nodes', () => {
	it.each([
		['as given', (url: string) => url],
		['with a trailing slash', (url: string) => `${url}/`],
		['with several trailing slashes', (url: string) => `${url}///`],
		['with spaces around it', (url: string) => `  ${url}  `],
	])('reach the same address when the Base URL is %s', async (_, variant) => {
		const baseUrl = variant(emu.url);
		const tested = await testCredential({ credentialType: credentialTypes[0], data: { apiKey: API_KEY, network: 'testnet', baseUrl } });
		expect(tested.status).toBe('OK');
		const byTest = emu.requests.at(-1)!;

		const { error } = await runAction(emu, { resource: 'hook', operation: 'getAll', returnAll: false, limit: 1 }, { credentials: { baseUrl } });
		expect(error).toBeUndefined();
		const byNode = emu.requests.at(-1)!;

		expect(byNode.path).toBe(byTest.path);
		expect(byNode.status).toBe(200);
	});

	it('falls back to the public service of each network, from the same table', () => {
		const expression = String(credentialTypes[0].test?.request.baseURL);
		for (const network of Object.values(NETWORKS)) expect(expression).toContain(`"${network.baseUrl}"`);
	});
});
