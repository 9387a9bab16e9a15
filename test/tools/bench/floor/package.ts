/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The floor's community package (see FloorTrigger.node.js), made at bench time in a temporary
 * folder (removed at exit) and packed with `npm pack` like the Stacks package: what n8n installs
 * is the same kind of thing on both sides.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { packPackage } from '../../../support/n8n/package';
import { atExit } from '../../../support/n8n/process';
import { REPO_DIR } from '../../../support/paths';
import { CREDENTIAL_TYPE } from '../../../../nodes/shared/constants';
import { SECRET } from '../payloads';

export const FLOOR_PACKAGE = 'n8n-nodes-bench-floor';
/** The node types as n8n names them in workflows: answered on receipt, and once the workflow has run. */
export const FLOOR_TYPE = `${FLOOR_PACKAGE}.floorTrigger`;
export const FLOOR_IN_ORDER_TYPE = `${FLOOR_PACKAGE}.floorTriggerInOrder`;
/** The floor under the Stacks Hooks Trigger's description (FloorTriggerDescribed.node.js): it needs the Stacks package installed beside it. */
export const FLOOR_DESCRIBED_TYPE = `${FLOOR_PACKAGE}.floorTriggerDescribed`;

const NODE_FILES = ['FloorTrigger.node.js', 'FloorTriggerInOrder.node.js', 'FloorTriggerDescribed.node.js'];
/** Read from the sources: tsc compiles only .ts into .build/. */
const SOURCE_DIR = path.join(REPO_DIR, 'test', 'tools', 'bench', 'floor');
const NODE_SOURCE = path.join(SOURCE_DIR, NODE_FILES[0]);

/** The packed floor package (a .tgz path). */
export async function packFloor(): Promise<string> {
	const source = fs.readFileSync(NODE_SOURCE, 'utf8');
	if (!source.includes(`'${SECRET}'`)) throw new Error(`${NODE_SOURCE} does not hold payloads.ts's SECRET: write the current one in`);
	if (!source.includes(`'${CREDENTIAL_TYPE}'`)) throw new Error(`${NODE_SOURCE} does not declare the trigger's credential type ${CREDENTIAL_TYPE}: write it in`);
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-bench-floor-'));
	atExit(() => fs.rmSync(dir, { recursive: true, force: true }));
	const manifest = path.join(dir, 'package.json');
	fs.writeFileSync(
		manifest,
		JSON.stringify({
			name: FLOOR_PACKAGE,
			version: '1.0.0',
			description: 'Benchmark floor of n8n-nodes-stacks-hooks: the cheapest community trigger',
			keywords: ['n8n-community-node-package'],
			license: 'MIT',
			files: ['dist'],
			n8n: { n8nNodesApiVersion: 1, credentials: [], nodes: NODE_FILES.map((file) => `dist/nodes/${file}`) },
		}, null, 2) + '\n',
	);
	fs.mkdirSync(path.join(dir, 'dist', 'nodes'), { recursive: true });
	for (const file of NODE_FILES) fs.copyFileSync(path.join(SOURCE_DIR, file), path.join(dir, 'dist', 'nodes', file));
	// packPackage runs `npm run build` unless every dist/*.js is at least as new as package.json:
	// there is no build here, so the manifest is dated a minute back to leave no doubt.
	const aMinuteAgo = new Date(Date.now() - 60_000);
	fs.utimesSync(manifest, aMinuteAgo, aMinuteAgo);
	return packPackage(dir);
}
