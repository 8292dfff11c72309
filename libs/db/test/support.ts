// Test support: a fresh database per test file on the run's PostgreSQL (QUARRY_TEST_PG_URL,
// started by withPostgres). @quarry/testing offers the same, but it depends on this package.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { closeDb, createDb, type AnyDb } from '@quarry/db';

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export interface FreshDatabase {
  url: string;
  admin: AnyDb;
  drop(): Promise<void>;
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const clusterUrl = process.env.QUARRY_TEST_PG_URL;
  if (!clusterUrl) throw new Error('QUARRY_TEST_PG_URL is not set: run through jest with withPostgres');
  const name = uniqueName('quarry_db_test');
  await onCluster(clusterUrl, (c) => c.query(`create database ${name}`));
  const url = Object.assign(new URL(clusterUrl), { pathname: `/${name}` }).toString();
  const admin = createDb({ connectionString: url, max: 2 });
  return {
    url,
    admin,
    drop: async () => {
      await closeDb(admin);
      await onCluster(clusterUrl, (c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}

/** Run `fn` on the cluster's maintenance database, e.g. to drop a role after its database. */
export async function onCluster<T>(clusterUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropRole(role: string): Promise<void> {
  await onCluster(process.env.QUARRY_TEST_PG_URL!, (c) => c.query(`drop role if exists ${role}`));
}

/** The SQLSTATE of a failed query (e.g. '42501' insufficient_privilege), or 'no error'. */
export async function sqlState(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'no error';
  } catch (error) {
    return (error as { code?: string }).code ?? `not a database error: ${(error as Error).message}`;
  }
}

/** Polls `check` every 20 ms until it holds; throws after 10 s. */
export async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!check()) throw new Error('condition not met in 10 s');
}
