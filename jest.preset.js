import { fileURLToPath } from 'node:url';

// Shared Jest setup: TypeScript through @swc/jest as native ESM, workspace packages resolved
// to their sources via the `quarry-source` export condition (no build needed to test).
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['quarry-source', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30_000,
  // After Jest's summary: the suites that skipped because this machine lacks what they need
  // (a browser), with the install line (libs/testing/src/skipped-suites.ts); and a record of the
  // failures, which the root `npm test` repeats at the very end (libs/testing/src/failed-tests.ts).
  reporters: [
    'default',
    fileURLToPath(new URL('./libs/testing/src/jest-skipped-suites-reporter.mjs', import.meta.url)),
    fileURLToPath(new URL('./libs/testing/src/jest-failed-tests-reporter.mjs', import.meta.url)),
  ],
};

/**
 * Give a package's tests a real PostgreSQL: one throwaway embedded cluster per `jest` run
 * (fresh temp dir, removed afterwards), its admin URL in QUARRY_TEST_PG_URL for the workers.
 * If QUARRY_TEST_PG_URL is already set (an external server), that server is used instead.
 * Tests then call `createTestDatabase()` from @quarry/testing.
 * @param {import('jest').Config} config
 * @returns {import('jest').Config}
 */
export function withPostgres(config) {
  if (config.globalSetup || config.globalTeardown) {
    throw new Error('withPostgres: this config already has a globalSetup/globalTeardown; Jest allows only one.');
  }
  return {
    ...config,
    globalSetup: fileURLToPath(new URL('./libs/testing/src/jest-global-setup.mjs', import.meta.url)),
    globalTeardown: fileURLToPath(new URL('./libs/testing/src/jest-global-teardown.mjs', import.meta.url)),
  };
}
