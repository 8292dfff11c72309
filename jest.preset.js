// Shared Jest setup: TypeScript through @swc/jest as native ESM, workspace packages resolved
// to their sources via the `quarry-source` export condition (no build needed to test).
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['quarry-source', 'node', 'node-addons'] },
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 30_000,
};
