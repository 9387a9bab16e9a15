// Copies what tsc does not emit, the icon pair in nodes/icons/, into dist/nodes/icons/. Both nodes
// and the credential point at it (`file:../icons/…`, `file:../nodes/icons/…`).
const { task, src, dest } = require('gulp');

function copyIcons() {
	return src('nodes/**/*.{png,svg}', { encoding: false }).pipe(dest('dist/nodes'));
}

task('build:icons', copyIcons);
