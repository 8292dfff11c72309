import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { appUrlFrom, closeDb, createDb, migrate, provisionAppRole, sql, type AnyDb, type Migration } from '@quarry/db';

export interface TestSchema {
  schema: string;
  migrations: Readonly<Record<string, Migration>>;
}

export interface TestDatabase {
  /** Name of the database created for this test file. */
  readonly name: string;
  readonly adminUrl: string;
  readonly appUrl: string;
  /** Superuser: migrations, fixtures, catalog checks. */
  readonly admin: AnyDb;
  /** The app role services use: row-level security applies. */
  readonly app: AnyDb;
  readonly appRole: string;
  /** Milliseconds spent creating, migrating and provisioning the database. */
  readonly setupMs: number;
  /** Close both pools and drop the database. Call it in afterAll. */
  drop(): Promise<void>;
}

/** The app role of test databases; roles are per cluster, so every test database shares it. */
export const TEST_APP_ROLE = 'quarry_app';
const TEST_APP_PASSWORD = 'quarry_app_test_password';

/**
 * The admin URL of the run's PostgreSQL: started by the `withPostgres` Jest global setup, or
 * an external server given in QUARRY_TEST_PG_URL.
 */
export function testPostgresUrl(): string {
  const url = process.env.QUARRY_TEST_PG_URL;
  if (!url) {
    throw new Error(
      'No PostgreSQL for tests: wrap the package jest config with withPostgres() from jest.preset.js, or set QUARRY_TEST_PG_URL.',
    );
  }
  return url;
}

/**
 * A fresh, uniquely named database on the run's cluster with `schemas` migrated (as admin) and
 * the app role granted on them, so each test file gets isolation without a cluster of its own.
 */
export async function createTestDatabase(options: { schemas?: readonly TestSchema[] } = {}): Promise<TestDatabase> {
  const began = performance.now();
  const clusterUrl = testPostgresUrl();
  const name = `quarry_test_${process.pid}_${randomBytes(5).toString('hex')}`;
  await onMaintenanceDb(clusterUrl, (client) => client.query(`create database ${client.escapeIdentifier(name)}`));

  const adminUrl = withDatabase(clusterUrl, name);
  const appUrl = appUrlFrom(adminUrl, TEST_APP_ROLE, TEST_APP_PASSWORD);
  const admin = createDb({ connectionString: adminUrl, max: 4, applicationName: 'quarry-test-admin' });
  let app: AnyDb | undefined;
  try {
    const schemas = options.schemas ?? [];
    for (const { schema, migrations } of schemas) await migrate({ db: admin, schema, migrations });
    await provisionAppRole(admin, {
      role: TEST_APP_ROLE,
      password: TEST_APP_PASSWORD,
      schemas: schemas.map((s) => s.schema),
    });
    app = createDb({ connectionString: appUrl, max: 4, applicationName: 'quarry-test-app' });
  } catch (error) {
    await closeDb(admin);
    await dropDatabase(clusterUrl, name);
    throw error;
  }
  const appDb = app;

  let dropping: Promise<void> | undefined;
  return {
    name,
    adminUrl,
    appUrl,
    admin,
    app: appDb,
    appRole: TEST_APP_ROLE,
    setupMs: Math.round(performance.now() - began),
    drop: () =>
      (dropping ??= (async () => {
        await Promise.all([closeDb(appDb), closeDb(admin)]);
        await dropDatabase(clusterUrl, name);
      })()),
  };
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

async function dropDatabase(clusterUrl: string, name: string): Promise<void> {
  await onMaintenanceDb(clusterUrl, (client) =>
    client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`),
  );
}

async function onMaintenanceDb(clusterUrl: string, fn: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: clusterUrl, application_name: 'quarry-test-fixture' });
  await client.connect();
  try {
    await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A database outage as its clients see a restart or failover: new connections of every role
 * but the superuser fail (53300, the database's connection limit is 0) and the open ones of
 * `roles` are terminated (57P01). `false` lets connections in again.
 */
export async function refuseConnections(
  database: TestDatabase,
  refuse: boolean,
  roles: readonly string[] = [database.appRole],
): Promise<void> {
  await sql`alter database ${sql.id(database.name)} connection limit ${sql.lit(refuse ? 0 : -1)}`.execute(
    database.admin,
  );
  if (refuse) {
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${database.name} and usename in (${sql.join(roles)})`.execute(
      database.admin,
    );
  }
}
