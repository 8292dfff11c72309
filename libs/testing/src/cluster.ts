import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@quarry/db';

/**
 * The throwaway cluster of one `jest` run: a fresh temp directory, no fsync, deleted on stop.
 * It stays in the test run's process group, so Ctrl-C on `jest` stops it too.
 */
export async function startTestCluster(): Promise<EmbeddedPostgres> {
  const dataDir = await mkdtemp(join(tmpdir(), 'quarry-test-pg-'));
  return startEmbeddedPostgres({
    dataDir,
    persistent: false,
    detached: false,
    // Every test file opens its own pools; leave room for two workers' worth of them.
    settings: { max_connections: 300 },
  });
}
