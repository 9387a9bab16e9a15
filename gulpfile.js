// Copies what tsc does not emit into dist/nodes/: the icon pair in nodes/icons/ (both nodes and the
// credential point at it: `file:../icons/…`, `file:../nodes/icons/…`), and each node's codex file
// (`<Node>.node.json`: categories, documentation links, search aliases), which n8n reads from beside
// the node's `<Node>.node.js`.
const { task, src, dest, parallel } = require('gulp');

function copyIcons() {
	return src('nodes/**/*.{png,svg}', { encoding: false }).pipe(dest('dist/nodes'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

// The name is the one package.json's build script runs; it copies the codex files too.
task('build:icons', parallel(copyIcons, copyCodex));
