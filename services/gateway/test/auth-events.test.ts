import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDb, type Kysely, sql } from '@quarry/db';
import { gatewaySchemas, type IdentityDatabase } from '@quarry/gateway';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';

// The audit log of sign-ins, consents and token issuance, seen through the app role the gateway
// connects as: it can append, and it can neither change nor remove what is written.

let database: TestDatabase;
let app: Kysely<IdentityDatabase>;

const events = () => app.selectFrom('identity.auth_events').select(['event', 'email', 'ip']).orderBy('id').execute();

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  app = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 1 });
});
afterAll(async () => {
  await app.destroy();
  await database.drop();
});

describe('identity.auth_events', () => {
  it('is insert-only for the app role: a failed sign-in, once recorded, stays', async () => {
    await sql`insert into identity.auth_events (event, email, ip) values ('sign_in_failed', 'ada@acme.test', '10.0.0.7')`.execute(
      app,
    );
    const before = await events();
    expect(before).toEqual([{ event: 'sign_in_failed', email: 'ada@acme.test', ip: '10.0.0.7' }]);
    await expect(sql`update identity.auth_events set event = 'sign_in'`.execute(app)).rejects.toThrow(
      /insert-only: UPDATE/,
    );
    await expect(sql`delete from identity.auth_events where email = 'ada@acme.test'`.execute(app)).rejects.toThrow(
      /insert-only: DELETE/,
    );
    await expect(sql`delete from identity.auth_events where false`.execute(app)).rejects.toThrow(/insert-only/);
    await expect(sql`truncate identity.auth_events`.execute(app)).rejects.toThrow(/insert-only|permission denied/);
    expect(await events()).toEqual(before);
  });
});
