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
	reporters: ['default', '<rootDir>/test/summary-reporter.js'],
};
