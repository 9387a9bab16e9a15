/**
 * Cost of loading the package: require() of every built node and credential (package.json's
 * n8n section) in fresh Node processes, and the size of the packed tarball.
 */
import * as fs from 'fs';
import * as path from 'path';

import { envWithoutNpm, median, runChild } from './util';

export interface LoadingFigures {
	/** The package's own files, n8n-workflow (and with it zod) loaded first, as inside n8n. */
	packageMs: number;
	/** n8n-workflow alone, cold: the peer n8n has loaded long before any community package. */
	workflowMs: number;
	/** Everything from cold: n8n-workflow, zod and the package. */
	coldMs: number;
	/** zod alone, cold. */
	zodMs: number;
	/** Whether n8n-workflow loads zod itself (then zod costs the package nothing inside n8n). */
	zodLoadedByWorkflow: boolean;
	spawns: number;
	entries: string[];
	tarballBytes: number;
	unpackedBytes: number;
	files: number;
}

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

export async function measureLoading(repoDir: string, spawns = 5): Promise<LoadingFigures> {
	const manifest = JSON.parse(fs.readFileSync(path.join(repoDir, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const entries = [...manifest.n8n.credentials, ...manifest.n8n.nodes].map((entry) => path.join(repoDir, entry));
	const runs: Array<{ workflowMs: number; packageMs: number; coldMs: number; zodLoaded: boolean }> = [];
	const zodRuns: number[] = [];
	for (let i = 0; i < spawns; i++) {
		for (const mode of ['package', 'zod']) {
			const result = await runChild(process.execPath, ['-e', PROBE, JSON.stringify(entries), mode], {
				cwd: repoDir,
				timeoutMs: 60_000,
			});
			if (result.code !== 0) throw new Error(`require probe failed: ${result.stderr}`);
			const figures = JSON.parse(result.stdout.trim()) as Record<string, number | boolean>;
			if (mode === 'zod') zodRuns.push(figures.zodMs as number);
			else runs.push(figures as unknown as (typeof runs)[number]);
		}
	}

	const pack = await runChild('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: repoDir,
		env: envWithoutNpm(),
		timeoutMs: 120_000,
	});
	if (pack.code !== 0) throw new Error(`npm pack --dry-run failed: ${pack.stderr}`);
	const [packed] = JSON.parse(pack.stdout) as Array<{ size: number; unpackedSize: number; entryCount: number }>;
	return {
		packageMs: median(runs.map((r) => r.packageMs)),
		workflowMs: median(runs.map((r) => r.workflowMs)),
		coldMs: median(runs.map((r) => r.coldMs)),
		zodMs: median(zodRuns),
		zodLoadedByWorkflow: runs.every((r) => r.zodLoaded),
		spawns,
		entries: entries.map((entry) => path.relative(repoDir, entry)),
		tarballBytes: packed.size,
		unpackedBytes: packed.unpackedSize,
		files: packed.entryCount,
	};
}
