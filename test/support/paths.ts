/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Where things are, whether the code runs from test/ (jest) or compiled into
 * .build/test/ (npm start, npm run bench): found by walking up to the
 * package's own package.json, so no file depends on its depth.
 */
import * as fs from 'fs';
import * as path from 'path';

/** The package's name on npm, and the folder n8n installs it in. */
export const PACKAGE_NAME = 'n8n-nodes-stacks-hooks';

function findRepo(from: string): string {
	for (let dir = from; ; dir = path.dirname(dir)) {
		try {
			const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string };
			if (manifest.name === PACKAGE_NAME) return dir;
		} catch {
			/* no package.json here */
		}
		if (path.dirname(dir) === dir) throw new Error(`no ${PACKAGE_NAME} package.json above ${from}`);
	}
}

export const REPO_DIR = findRepo(__dirname);

/** The pinned n8n versions, one folder each (package.json, lock file, node_modules): see hosts/versions.ts. */
export const HOSTS_DIR = path.join(REPO_DIR, 'test', 'support', 'n8n', 'hosts');

/** The example workflows (JSON) and the README's screenshots. */
export const EXAMPLES_DIR = path.join(REPO_DIR, 'test', 'examples');

/** Screenshots and other output of a test run (ignored by git). */
export const ARTIFACTS_DIR = path.join(REPO_DIR, 'test', 'artifacts');
