/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * What `npm pack` ships is what n8n installs: the built nodes, the credential,
 * their icons, and no runtime dependencies or tests.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { REPO_DIR } from '../support/paths';

const root = REPO_DIR;

interface PackResult {
	files: Array<{ path: string }>;
	size: number;
}

describe('the packed package', () => {
	let packed: PackResult;
	const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

	beforeAll(() => {
		// `npm test` builds first; pack only lists what it would ship.
		const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		[packed] = JSON.parse(out) as PackResult[];
	});

	it('has no runtime dependencies, and n8n-workflow only as a peer', () => {
		expect(manifest.dependencies ?? {}).toEqual({});
		expect(Object.keys(manifest.peerDependencies)).toEqual(['n8n-workflow']);
		expect(manifest.keywords).toContain('n8n-community-node-package');
	});

	it('holds exactly the built nodes, credential and icons under dist/', () => {
		const files = packed.files.map((file) => file.path).sort();
		const dist = files.filter((file) => file.startsWith('dist/'));
		expect(files.filter((file) => !file.startsWith('dist/')).sort()).toEqual(
			['LICENSE.md', 'README.md', 'index.js', 'package.json'].filter((file) => files.includes(file)),
		);
		expect(dist.every((file) => /^dist\/(nodes|credentials)\/.+\.(js|svg)$/.test(file) || /^dist\/nodes\/.+\.node\.json$/.test(file))).toBe(true);
		expect(dist.some((file) => /test|\.map$|\.d\.ts$/.test(file))).toBe(false);
		for (const entry of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) expect(dist).toContain(entry);
		// Each node's codex file beside it: n8n reads `<Node>.node.js` + `on`.
		for (const entry of manifest.n8n.nodes) expect(dist).toContain(`${entry}on`);
		// One icon pair, shipped once, for both nodes and the credential.
		expect(dist.filter((file) => file.endsWith('.svg'))).toEqual([
			'dist/nodes/icons/stacksHooks.dark.svg',
			'dist/nodes/icons/stacksHooks.svg',
		]);
	});

	it('points every node and the credential at an icon pair the package ships', () => {
		const shipped = packed.files.map((file) => file.path);
		for (const entry of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- a module loaded by its path at run time
			const exported = require(path.join(root, entry)) as Record<string, new () => object>;
			const instance = new (Object.values(exported)[0])() as {
				icon?: Record<string, string>;
				description?: { icon?: Record<string, string> };
			};
			const icon = instance.description?.icon ?? instance.icon;
			expect(Object.keys(icon ?? {}).sort()).toEqual(['dark', 'light']);
			for (const file of Object.values(icon!)) {
				expect(file.startsWith('file:')).toBe(true);
				expect(shipped).toContain(path.posix.join(path.posix.dirname(entry), file.slice('file:'.length)));
			}
		}
	});

	it('loads every listed node and credential from dist/ with only n8n-workflow and zod', () => {
		for (const entry of [...manifest.n8n.nodes, ...manifest.n8n.credentials]) {
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- a module loaded by its path at run time
			const exported = require(path.join(root, entry)) as Record<string, new () => object>;
			const [Type] = Object.values(exported);
			expect(typeof Type).toBe('function');
			expect(new Type()).toBeTruthy();
		}
	});
});
