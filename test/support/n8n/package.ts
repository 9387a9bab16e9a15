/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/** The package as n8n gets it: built, packed with `npm pack`, installed as n8n installs community packages. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { REPO_DIR } from '../paths';
import { withoutNpmConfig } from './hosts/provision';
import { atExit, run, runError } from './process';

/** Every file under `target` (a file or a folder; none when missing). */
function filesUnder(target: string): string[] {
	if (!fs.existsSync(target)) return [];
	if (!fs.statSync(target).isDirectory()) return [target];
	return fs
		.readdirSync(target, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Whether `<dir>/dist` holds a build of the current sources (every built .js newer than every
 * source). packPackage then skips `npm run build`, so suites run in parallel after `npm test`'s
 * build do not clean and rebuild dist/ under each other's feet.
 */
function buildIsFresh(dir: string): boolean {
	const built = filesUnder(path.join(dir, 'dist')).filter((file) => file.endsWith('.js'));
	if (built.length === 0) return false;
	const mtime = (file: string) => fs.statSync(file).mtimeMs;
	const oldestBuilt = Math.min(...built.map(mtime));
	const sources = ['nodes', 'credentials', 'package.json', 'tsconfig.json', 'gulpfile.js', 'index.js'];
	return sources.flatMap((entry) => filesUnder(path.join(dir, entry))).every((file) => mtime(file) <= oldestBuilt);
}

const packed = new Map<string, Promise<string>>();

/**
 * `npm run build` (unless dist/ is up to date), then `npm pack` of the package in `dir` into a
 * temporary folder (removed at exit). Returns the tarball's path. Cached per process and folder.
 */
export function packPackage(dir: string = REPO_DIR, log?: (line: string) => void): Promise<string> {
	const key = path.resolve(dir);
	const cached = packed.get(key);
	if (cached) return cached;
	const promise = (async () => {
		const env = withoutNpmConfig(process.env);
		if (!buildIsFresh(key)) {
			const build = await run('npm', ['run', 'build'], { cwd: key, env, log, timeoutMs: 5 * 60_000 });
			if (build.code !== 0) throw runError(`\`npm run build\` in ${key}`, build, 'Fix the build errors above.');
		}
		const dest = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-pack-'));
		atExit(() => fs.rmSync(dest, { recursive: true, force: true }));
		// The build just ran: skip the prepack script (another build).
		const args = ['pack', '--ignore-scripts', '--pack-destination', dest];
		const pack = await run('npm', args, { cwd: key, env, log, timeoutMs: 2 * 60_000 });
		if (pack.code !== 0) throw runError(`\`npm pack\` in ${key}`, pack, 'See the output above.');
		const tarballs = fs.readdirSync(dest).filter((file) => file.endsWith('.tgz'));
		if (tarballs.length !== 1) throw new Error(`npm pack left ${tarballs.length} tarballs in ${dest}`);
		return path.join(dest, tarballs[0]);
	})();
	promise.catch(() => packed.delete(key));
	packed.set(key, promise);
	return promise;
}

/**
 * Installs a tarball as n8n installs community packages: into `<userFolder>/.n8n/nodes/` (an
 * npm project, made when missing) with `npm i --omit=peer --legacy-peer-deps --ignore-scripts`.
 * n8n loads it at its next start.
 */
export async function installPackage(userFolder: string, tarball: string, log?: (line: string) => void): Promise<void> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(manifest)) {
		fs.writeFileSync(manifest, JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2) + '\n');
	}
	const args = ['i', '--omit=peer', '--legacy-peer-deps', '--ignore-scripts', '--no-audit', '--no-fund', path.resolve(tarball)];
	const result = await run('npm', args, { cwd: nodesDir, env: withoutNpmConfig(process.env), log, timeoutMs: 5 * 60_000 });
	if (result.code !== 0) {
		throw runError(`npm i ${tarball} in ${nodesDir}`, result, 'Check the tarball and that the npm registry is reachable.');
	}
}
