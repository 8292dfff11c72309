import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDb, type Kysely, sql } from '@quarry/db';
import { createIdentityAdmin, createServiceAccountAdmin, gatewaySchemas, type IdentityDatabase } from '@quarry/gateway';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';

// identity.service_accounts under the app role: a tenant sees its own accounts only, the
// authorization server's lookup reads exactly the one client it is authenticating, and no row
// is ever deleted.

let database: TestDatabase;
let app: Kysely<IdentityDatabase>;
let orgA: string;
let orgB: string;
let clientA: string;
let clientB: string;

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  app = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 1 });
  const admin = createIdentityAdmin(database.admin as Kysely<IdentityDatabase>);
  orgA = (await admin.createOrg({ slug: 'org-a' })).id;
  orgB = (await admin.createOrg({ slug: 'org-b' })).id;
  const accounts = createServiceAccountAdmin(database.admin as Kysely<IdentityDatabase>);
  clientA = (await accounts.create({ orgSlug: 'org-a', name: 'etl', scopes: 'quarry:read' })).clientId;
  clientB = (await accounts.create({ orgSlug: 'org-b', name: 'etl', scopes: 'quarry:read' })).clientId;
});
afterAll(async () => {
  await app?.destroy();
  await database?.drop();
});

function asApp<T>(settings: Record<string, string>, fn: (trx: Kysely<IdentityDatabase>) => Promise<T>): Promise<T> {
  return app.transaction().execute(async (trx) => {
    for (const [key, value] of Object.entries(settings))
      await sql`select set_config(${key}, ${value}, true)`.execute(trx);
    return fn(trx);
  });
}

const clientIds = (trx: Kysely<IdentityDatabase>) =>
  trx
    .selectFrom('identity.service_accounts')
    .select('client_id')
    .execute()
    .then((rows) => rows.map((r) => r.client_id));

describe('identity.service_accounts under the app role', () => {
  it("shows a tenant its own accounts only; another org's client id is as missing as an unknown one", async () => {
    expect(await asApp({ 'app.org_id': orgA }, clientIds)).toEqual([clientA]);
    expect(await asApp({ 'app.org_id': orgB }, clientIds)).toEqual([clientB]);
    expect(await asApp({}, clientIds)).toEqual([]);
    const lookup = (id: string) =>
      asApp({ 'app.org_id': orgA }, (trx) =>
        trx.selectFrom('identity.service_accounts').select('id').where('client_id', '=', id).execute(),
      );
    expect(await lookup(clientB)).toEqual(await lookup('qsa_000000000000000000000000'));
  });

  it('lets the authorization server read exactly the client it is authenticating', async () => {
    expect(await asApp({ 'app.client_id': clientB }, clientIds)).toEqual([clientB]);
  });

  it("refuses writing into another org, changing another org's account, and deleting any", async () => {
    await expect(
      asApp({ 'app.org_id': orgA }, (trx) =>
        trx
          .insertInto('identity.service_accounts')
          .values({
            org_id: orgB,
            name: 'sneaky',
            client_id: 'qsa_sneaky',
            secret_hash: Buffer.alloc(32),
            secret_hint: 'x',
            scopes: ['quarry:read'],
          })
          .execute(),
      ),
    ).rejects.toThrow(/row-level security/);
    const changed = await asApp({ 'app.org_id': orgA, 'app.client_id': clientB }, (trx) =>
      trx
        .updateTable('identity.service_accounts')
        .set({ scopes: ['quarry:admin'] })
        .where('client_id', '=', clientB)
        .executeTakeFirst(),
    );
    expect(changed.numUpdatedRows).toBe(0n);
    await expect(
      asApp({ 'app.org_id': orgA }, (trx) =>
        trx.deleteFrom('identity.service_accounts').where('client_id', '=', clientA).execute(),
      ),
    ).rejects.toThrow(/revoked, never deleted/);
  });
});
