/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * n8n's own verdict on the package's lint set-up: `n8n-node cloud-support` reports it eligible
 * for n8n Cloud verification (strict mode on, eslint.config.mjs exactly n8n's default). `npm test`
 * runs `n8n-node lint` itself first (npm run lint), which in strict mode also refuses a changed config.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';

import { REPO_DIR } from '../../support/paths';

describe('n8n-node cloud-support', () => {
	it('reports the package eligible: strict mode and n8n\'s default eslint config', () => {
		const cli = path.join(REPO_DIR, 'node_modules', '.bin', 'n8n-node');
		const result = spawnSync(cli, ['cloud-support'], { cwd: REPO_DIR, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
		const output = `${result.stdout}${result.stderr}`;
		expect(result.status).toBe(0);
		expect(output).toContain('Cloud support is ENABLED');
		expect(output).toContain('Strict mode: enabled');
		expect(output).toContain('ESLint config: using default config');
		expect(output).toMatch(/Status: eligible for n8n Cloud verification/);
	}, 60_000);
});
