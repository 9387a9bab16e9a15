// Copies what tsc does not emit (node and credential icons) into dist/, keeping
// the folder layout, so each built node and credential finds its `file:` icon beside it.
const { task, src, dest, parallel } = require('gulp');

function copyNodeIcons() {
	return src('nodes/**/*.{png,svg}', { encoding: false }).pipe(dest('dist/nodes'));
}

function copyCredentialIcons() {
	return src('credentials/**/*.{png,svg}', { encoding: false, allowEmpty: true }).pipe(
		dest('dist/credentials'),
	);
}

task('build:icons', parallel(copyNodeIcons, copyCredentialIcons));
