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
	// Two test files at a time, whatever the machine: the real-n8n suites spend most of their time
	// waiting on n8n (starts, leases, deliveries), so two of them keep a 2-core machine busy without
	// starving each other, and a fixed number keeps their timed cases comparable between machines.
	maxWorkers: 2,
	// The longest real-n8n suite first (it waits for the n8n host's install), the fast suites beside it, then the other real-n8n suites.
	testSequencer: '<rootDir>/test/sequencer.js',
	globalSetup: '<rootDir>/test/head-start.ts',
	globalTeardown: '<rootDir>/test/teardown.ts',
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
