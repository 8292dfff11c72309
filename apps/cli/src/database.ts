import { findRunningEmbeddedPostgres, startEmbeddedPostgres } from '@quarry/db';
import type { DataDirectory } from './data-dir.js';

export interface AdminDatabase {
  adminUrl: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * The admin connection for operator commands, in order of preference: `DATABASE_ADMIN_URL`,
 * `DATABASE_URL`, the embedded instance a running `npm start` advertises, or the embedded
 * cluster in `.quarry/` started just for this command.
 */
export async function openAdminDatabase(
  dir: DataDirectory,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<AdminDatabase> {
  const configured = env.DATABASE_ADMIN_URL || env.DATABASE_URL;
  if (configured) return { adminUrl: configured, embedded: false, stop: async () => undefined };
  const running = await findRunningEmbeddedPostgres(dir.postgres);
  if (running) return { adminUrl: running.adminUrl, embedded: true, stop: async () => undefined };
  dir.create();
  const pg = await startEmbeddedPostgres({ dataDir: dir.postgres, persistent: true });
  return { adminUrl: pg.adminUrl, embedded: true, stop: () => pg.stop() };
}
