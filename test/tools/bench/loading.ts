/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * Part 5, the cost of loading the package: require() of every built node and credential
 * (package.json's n8n section) in fresh Node processes, and the size of the packed tarball.
 */
import * as fs from 'fs';
import * as path from 'path';

import { withoutNpmConfig } from '../../support/n8n/hosts/provision';
import { run, runError } from '../../support/n8n/process';
import { fmtBytes, fmtMs, fmtRatio, median, type Row, verdict } from './util';

/** Prints {workflowMs, packageMs, coldMs, zodLoaded} (n8n-workflow first, as inside n8n), or {zodMs} in mode 'zod'. */
const PROBE = `
const t = () => Number(process.hrtime.bigint()) / 1e6;
const entries = JSON.parse(process.argv[1]);
const mode = process.argv[2];
const out = {};
if (mode === 'zod') {
	const a = t(); require('zod'); out.zodMs = t() - a;
} else {
	const a = t(); require('n8n-workflow'); const b = t();
	out.zodLoaded = Object.keys(require.cache).some((k) => /[\\\\/]node_modules[\\\\/]zod[\\\\/]/.test(k));
	for (const entry of entries) require(entry);
	const c = t();
	out.workflowMs = b - a; out.packageMs = c - b; out.coldMs = c - a;
	for (const entry of entries) if (Object.values(require(entry)).length === 0) throw new Error(entry + ' exports nothing');
}
process.stdout.write(JSON.stringify(out) + '\\n');
`;

export async function loadingRows(repoDir: string, spawns = 5): Promise<Row[]> {
	const manifest = JSON.parse(fs.readFileSync(path.join(repoDir, 'package.json'), 'utf8')) as { n8n: { nodes: string[]; credentials: string[] } };
	const entries = [...manifest.n8n.credentials, ...manifest.n8n.nodes].map((entry) => path.join(repoDir, entry));
	const runs: Array<{ workflowMs: number; packageMs: number; coldMs: number; zodLoaded: boolean; zodMs: number }> = [];
	for (let i = 0; i < spawns; i++) {
		const probe = async (mode: string) => {
			const result = await run(process.execPath, ['-e', PROBE, JSON.stringify(entries), mode], { cwd: repoDir, timeoutMs: 60_000 });
			if (result.code !== 0) throw runError('require probe', result, 'See the error above.');
			return JSON.parse(result.stdout) as Partial<(typeof runs)[number]>;
		};
		runs.push({ ...(await probe('package')), ...(await probe('zod')) } as (typeof runs)[number]);
	}
	const of = (key: 'workflowMs' | 'packageMs' | 'coldMs' | 'zodMs') => median(runs.map((r) => r[key]));
	const [packageMs, workflowMs, zodMs] = [of('packageMs'), of('workflowMs'), of('zodMs')];
	const zodLoadedByWorkflow = runs.every((r) => r.zodLoaded);

	// npm's variables from `npm run bench` would steer the nested npm.
	const pack = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: repoDir, env: withoutNpmConfig(process.env), timeoutMs: 120_000 });
	if (pack.code !== 0) throw runError('npm pack --dry-run', pack, 'See the output above.');
	const [packed] = JSON.parse(pack.stdout) as Array<{ size: number; unpackedSize: number; entryCount: number }>;
	const limit = 80 * 1024;
	return [
		{
			id: '5a', what: `require() of the ${entries.length} built entry points (n8n section), fresh Node`,
			figure: fmtMs(packageMs), reference: `n8n-workflow ${fmtMs(workflowMs)}`, ratio: packageMs / workflowMs,
			target: '≤ 50 ms', verdict: verdict(packageMs <= 50),
			raw:
				`median of ${spawns} spawns, n8n-workflow required first as inside n8n (it loads zod itself: ${zodLoadedByWorkflow ? 'yes' : 'no'}); ` +
				`everything from cold ${fmtMs(of('coldMs'))}; zod alone, cold ${fmtMs(zodMs)}: ` +
				(zodLoadedByWorkflow
					? `zod does not dominate — inside n8n it is already loaded, and even cold it is ${fmtRatio(zodMs / packageMs)} the package's own time`
					: 'zod is loaded by the package'),
		}, {
			id: '5b', what: 'packed tarball (npm pack)',
			figure: fmtBytes(packed.size), reference: 'limit 80 KB', ratio: packed.size / limit,
			target: '≤ 80 KB', verdict: verdict(packed.size <= limit),
			raw: `${packed.entryCount} files, ${fmtBytes(packed.unpackedSize)} unpacked`,
		},
	];
}
