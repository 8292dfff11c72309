// Jest globalTeardown (added by `withPostgres`): stop the run's throwaway PostgreSQL and delete
// its directory. A cluster we did not start (external QUARRY_TEST_PG_URL) is left alone.
export default async function globalTeardown() {
  const cluster = globalThis.__quarryTestCluster;
  if (!cluster) return;
  globalThis.__quarryTestCluster = undefined;
  delete process.env.QUARRY_TEST_PG_URL;
  await cluster.stop();
}
