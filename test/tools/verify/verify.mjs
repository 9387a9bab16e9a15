#!/usr/bin/env node
/**
 * `npm run verify`: n8n's community-package scanner (`@n8n/scan-community-package`, the gate of
 * n8n's verified listing) on this package, run offline before publishing.
 *
 * The scanner itself (`npx @n8n/scan-community-package <name>`) needs the published package: it
 * checks its npm provenance, downloads the attested source commit and the tarball, then lints
 * both with its own `analyzePackage`. This script runs those two lint legs with the scanner's
 * own `analyzePackage` and file patterns, on what would be published:
 *   - source leg: the package folder, with the scanner's SOURCE_FILE_PATTERNS
 *     (package.json, nodes/ and credentials/);
 *   - tarball leg: `npm pack` of the folder, unpacked, with the patterns the scanner uses on the
 *     tarball (compiled .js and package.json).
 * Provenance is the release workflow's part (.github/workflows/release.yml publishes with
 * `npm publish --provenance`); it cannot be produced or checked before a publish.
 *
 * analyzePackage only returns a verdict (and ESLint's report when it fails). To print how many
 * errors and warnings each leg found, this script watches the ESLint results the scanner's own
 * ESLint instance returns (a wrapper around ESLint.prototype.lintFiles of the scanner's copy of
 * ESLint); nothing of the scanner's configuration or file selection is repeated here.
 *
 * Usage: node test/tools/verify/verify.mjs [package folder]   (default: this repository; its
 * dist/ must be built: `npm run verify` builds first). Exit code 0 when both legs pass.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const packageDir = path.resolve(process.argv[2] ?? REPO_DIR);

// eslint-plugin-n8n-nodes-base treats every file as a node file, with the name "Test.node.ts",
// when NODE_ENV is "test" (jest sets it): its filename rules would then report false errors.
delete process.env.NODE_ENV;

const require = createRequire(path.join(REPO_DIR, 'package.json'));
const scannerFile = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs');
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(pathToFileURL(scannerFile).href);
const scannerVersion = JSON.parse(fs.readFileSync(require.resolve('@n8n/scan-community-package/package.json'), 'utf8')).version;

// The ESLint the scanner imports (resolved from the scanner's folder), to count what it reports.
const { ESLint } = createRequire(scannerFile)('eslint');
const seen = [];
const lintFiles = ESLint.prototype.lintFiles;
ESLint.prototype.lintFiles = async function (...args) {
	const results = await lintFiles.apply(this, args);
	seen.push(...results);
	return results;
};

function fail(message) {
	console.error(`verify: ${message}`);
	process.exit(2);
}

function sh(command, args, cwd) {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: withoutNpmConfig(process.env) });
	if (result.status !== 0) fail(`\`${command} ${args.join(' ')}\` in ${cwd} exited ${result.status}:\n${result.stdout}${result.stderr}`);
	return result.stdout;
}

/** npm's npm_* variables (set by `npm run`) would steer the nested npm pack; drop them. */
function withoutNpmConfig(env) {
	return Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_/i.test(key)));
}

if (!fs.existsSync(path.join(packageDir, 'package.json'))) fail(`${packageDir} has no package.json`);
const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
for (const file of [...(manifest.n8n?.nodes ?? []), ...(manifest.n8n?.credentials ?? [])]) {
	if (!fs.existsSync(path.join(packageDir, file))) fail(`${file} (listed in package.json "n8n") is missing: run \`npm run build\` first`);
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'stacks-hooks-verify-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

// What npm would publish: `npm pack` (without the prepack build: dist/ is already built).
sh('npm', ['pack', '--ignore-scripts', '--pack-destination', work], packageDir);
const tarball = fs.readdirSync(work).find((file) => file.endsWith('.tgz'));
const unpacked = path.join(work, 'package');
fs.mkdirSync(unpacked);
sh('tar', ['-xzf', path.join(work, tarball), '-C', unpacked, '--strip-components=1'], work);

console.log(`@n8n/scan-community-package ${scannerVersion}: analyzePackage on ${manifest.name}@${manifest.version}`);
const legs = [
	{ name: 'source', dir: packageDir, patterns: SOURCE_FILE_PATTERNS },
	{ name: 'tarball', dir: unpacked, patterns: ['**/*.js', 'package.json'], label: tarball },
];
let passed = true;
for (const leg of legs) {
	seen.length = 0;
	const result = await analyzePackage(leg.dir, leg.patterns);
	const errors = seen.reduce((sum, r) => sum + r.errorCount, 0);
	const warnings = seen.reduce((sum, r) => sum + r.warningCount, 0);
	const where = leg.label ?? (path.relative(process.cwd(), leg.dir) || '.');
	console.log(
		`  ${result.passed ? 'PASS' : 'FAIL'}  ${leg.name} leg (${where}; ${leg.patterns.join(', ')}): ` +
			`${seen.length} files, ${errors} errors, ${warnings} warnings`,
	);
	if (!result.passed) {
		passed = false;
		console.log(`        ${result.message}`);
		if (result.details) console.log(result.details.replaceAll(unpacked, `<${tarball}>`));
	} else if (warnings > 0) {
		const formatter = await new ESLint().loadFormatter('stylish');
		console.log(await formatter.format(seen.filter((r) => r.warningCount > 0)));
	}
	if (seen.length === 0) {
		passed = false;
		console.log('        no files were linted: the patterns found nothing to check');
	}
}
console.log(
	passed
		? 'verify: the scanner\'s checks pass (provenance is added by the release workflow\'s `npm publish --provenance`)'
		: 'verify: the scanner would refuse this package; fix the findings above',
);
process.exit(passed ? 0 : 1);
