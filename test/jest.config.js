/** Every test of the package: emulator, engine (n8n-core), end-to-end (real n8n). */
module.exports = {
	rootDir: '..',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/test/tsconfig.json' }],
	},
	testTimeout: 30000,
	// The real-n8n suites last, and n8n provisioned while the others run.
	testSequencer: '<rootDir>/test/sequencer.js',
	globalSetup: '<rootDir>/test/head-start.ts',
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
