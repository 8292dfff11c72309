import { createDb, type Kysely } from '@quarry/db';
import { createIdentityAdmin, gatewaySchemas, type IdentityDatabase } from '@quarry/gateway';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { type Member, membershipsOf } from '../src/identity/member.js';

/** A test database with two organizations (acme, globex), as the operator would set them up. */
export interface PeopleFixture {
  database: TestDatabase;
  /** The app role the gateway connects as: row-level security applies. */
  app: Kysely<IdentityDatabase>;
  admin: Kysely<IdentityDatabase>;
  /** The member `email` of org `slug`, as the web app resolves a signed-in person. */
  member(email: string, slug: string): Promise<Member>;
  close(): Promise<void>;
}

export async function peopleFixture(): Promise<PeopleFixture> {
  const database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  const admin = database.admin as Kysely<IdentityDatabase>;
  const app = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 4 });
  const operator = createIdentityAdmin(admin);
  for (const slug of ['acme', 'globex']) await operator.createOrg({ slug, name: slug.toUpperCase() });
  await operator.addUser({ email: 'owner@acme.test', orgSlug: 'acme', name: 'Olive', role: 'owner' });
  await operator.addUser({ email: 'admin@acme.test', orgSlug: 'acme', name: 'Adam', role: 'admin' });
  await operator.addUser({ email: 'mia@acme.test', orgSlug: 'acme', name: 'Mia', role: 'member' });
  await operator.addUser({ email: 'gus@globex.test', orgSlug: 'globex', name: 'Gus', role: 'owner' });
  return {
    database,
    app,
    admin,
    async member(email, slug) {
      const user = await admin
        .selectFrom('identity.users')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
      const found = (await membershipsOf(app, user.id)).find((m) => m.orgSlug === slug);
      if (!found) throw new Error(`${email} is not in ${slug}`);
      return found;
    },
    async close() {
      await app.destroy();
      await database.drop();
    },
  };
}
