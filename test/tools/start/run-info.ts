/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** What a running `npm start` tells `npm run emulate`: kept in .cache/ while it runs. */
import * as fs from 'fs';
import * as path from 'path';

import { REPO_DIR } from '../../support/paths';

export interface RunInfo {
	/** The process of `npm start` (node .build/test/tools/start/start.js). */
	pid: number;
	/** e.g. https://127.0.0.1:5678 */
	n8nUrl: string;
	/** e.g. http://127.0.0.1:3999 */
	emulatorOrigin: string;
	/** A public-API key of the local n8n's owner (to read executions). */
	apiKey: string;
	/** n8n's self-signed certificate (PEM file), to trust its HTTPS. */
	certificateFile: string;
	triggerWorkflowId: string;
}

export function runInfoPath(repo: string = REPO_DIR): string {
	return path.join(repo, '.cache', 'stacks-hooks-running.json');
}

export function readRunInfo(repo: string = REPO_DIR): RunInfo | undefined {
	try {
		return JSON.parse(fs.readFileSync(runInfoPath(repo), 'utf8')) as RunInfo;
	} catch {
		return undefined;
	}
}
