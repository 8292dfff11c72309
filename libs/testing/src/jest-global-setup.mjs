// Jest globalSetup (added by `withPostgres` in jest.preset.js): one throwaway PostgreSQL per
// `jest` run, shared by all workers through QUARRY_TEST_PG_URL (workers inherit the env).
// When QUARRY_TEST_PG_URL is already set (an external server, e.g. in CI), nothing starts.
import { register } from 'node:module';

export default async function globalSetup() {
  if (process.env.QUARRY_TEST_PG_URL) return;
  if (!globalThis.__quarryTsHooks) {
    register('./ts-hooks.mjs', import.meta.url);
    globalThis.__quarryTsHooks = true;
  }
  const { startTestCluster } = await import('./cluster.ts');
  const cluster = await startTestCluster();
  process.env.QUARRY_TEST_PG_URL = cluster.adminUrl;
  // Globals set in globalSetup are visible to globalTeardown (same process).
  globalThis.__quarryTestCluster = cluster;
}
