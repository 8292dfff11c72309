import { afterAll, beforeAll } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { planSchemas } from '../../src/migrations/index.js';
import { asTenant, seedOrg, type SeededOrg } from './fixtures.js';

// Shared by the `plan` schema's integrity test files (integrity.test.ts,
// plan-change-notifications.test.ts): a fresh migrated database with one seeded org, and
// statements run as that org's tenant.

export let database: TestDatabase;
export let a: SeededOrg;

/** The database and the org for the tests of the file (`database` and `a`: live bindings). */
export function useSeededDatabase(): void {
  beforeAll(async () => {
    database = await createTestDatabase({ schemas: [...planSchemas] });
    a = await seedOrg(database.admin);
  });
  afterAll(async () => {
    await database?.drop();
  });
}

export const asA = <T>(fn: Parameters<typeof asTenant<T>>[2]) => asTenant(database.app, a.orgId, fn);
