import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createDb, type Kysely } from '@quarry/db';
import { gatewaySchemas, type IdentityDatabase } from '@quarry/gateway';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { completeFirstRun, needsFirstRun } from '../src/identity/first-run.js';
import {
  acceptInvitation,
  createInvitation,
  listInvitations,
  openInvitation,
  revokeInvitation,
} from '../src/identity/invitations.js';
import { membershipsOf } from '../src/identity/member.js';
import { createOAuthAdmin } from '../src/oauth/admin.js';
import { verifyPassword } from '../src/oauth/passwords.js';
import { type PeopleFixture, peopleFixture } from './people-fixtures.js';

// First-run setup and invitations at the service boundary, on the app role (row-level security).

describe('first-run setup', () => {
  let database: TestDatabase;
  let app: Kysely<IdentityDatabase>;
  beforeAll(async () => {
    database = await createTestDatabase({ schemas: [...gatewaySchemas] });
    app = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 4 });
  });
  afterAll(async () => {
    await app.destroy();
    await database.drop();
  });

  const input = (slug: string) => ({
    orgSlug: slug,
    orgName: 'Acme Research',
    email: `Owner@${slug}.test`,
    name: 'Olive',
    password: 'correct horse battery',
  });

  it('refuses a short password and leaves nothing behind', async () => {
    await expect(completeFirstRun(app, { ...input('acme'), password: 'short' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(await needsFirstRun(app)).toBe(true);
  });

  it('creates the first org and its owner with a password, once, whoever races', async () => {
    const results = await Promise.allSettled([
      completeFirstRun(app, input('acme')),
      completeFirstRun(app, input('other')),
    ]);
    const done = results.filter((r) => r.status === 'fulfilled');
    expect(done).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'ALREADY_EXISTS' });
    expect(await needsFirstRun(app)).toBe(false);
    const { userId, orgSlug } = (done[0] as PromiseFulfilledResult<{ userId: string; orgSlug: string }>).value;
    expect((await membershipsOf(app, userId)).map((m) => [m.orgSlug, m.role, m.email])).toEqual([
      [orgSlug, 'owner', `owner@${orgSlug}.test`],
    ]);
    const stored = await database.admin
      .selectFrom('identity.user_passwords' as never)
      .select('password_hash' as never)
      .executeTakeFirstOrThrow();
    expect(await verifyPassword((stored as { password_hash: string }).password_hash, 'correct horse battery')).toBe(
      true,
    );
    await expect(completeFirstRun(app, input('later'))).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  });
});

describe('invitations', () => {
  let f: PeopleFixture;
  beforeAll(async () => {
    f = await peopleFixture();
  });
  afterAll(async () => {
    await f?.close();
  });

  it('an admin invites; the link is stored hashed, opens once and makes a member with a password', async () => {
    const admin = await f.member('admin@acme.test', 'acme');
    const invitation = await createInvitation(f.app, admin, { email: 'New@Acme.test', role: 'member' });
    expect(invitation.token).toMatch(/^qin_[A-Za-z0-9_-]{43}$/);
    const stored = await f.admin
      .selectFrom('identity.invitations')
      .select(['token_hash', 'email'])
      .where('id', '=', invitation.id)
      .executeTakeFirstOrThrow();
    expect(stored.email).toBe('new@acme.test');
    expect(stored.token_hash).toEqual(createHash('sha256').update(invitation.token).digest());
    expect(await openInvitation(f.app, invitation.token)).toMatchObject({
      email: 'new@acme.test',
      role: 'member',
      orgSlug: 'acme',
    });

    const accepted = await acceptInvitation(f.app, {
      token: invitation.token,
      name: 'Newt',
      password: 'a long enough password',
    });
    expect(accepted.orgSlug).toBe('acme');
    expect((await f.member('new@acme.test', 'acme')).role).toBe('member');
    // Single use.
    expect(await openInvitation(f.app, invitation.token)).toBeUndefined();
    await expect(
      acceptInvitation(f.app, { token: invitation.token, name: 'X', password: 'another long password' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const events = await f.admin
      .selectFrom('identity.auth_events')
      .select('event')
      .where('org_slug', '=', 'acme')
      .execute();
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['invitation_created', 'invitation_accepted']));
  });

  it('an expired or revoked link is refused like an unknown one', async () => {
    const admin = await f.member('owner@acme.test', 'acme');
    const expired = await createInvitation(f.app, admin, { email: 'late@acme.test', role: 'member', ttlMs: -1000 });
    expect(await openInvitation(f.app, expired.token)).toBeUndefined();
    const revoked = await createInvitation(f.app, admin, { email: 'gone@acme.test', role: 'admin' });
    await revokeInvitation(f.app, admin, revoked.id);
    expect(await openInvitation(f.app, revoked.token)).toBeUndefined();
    await expect(
      acceptInvitation(f.app, { token: revoked.token, name: 'G', password: 'a long enough password' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await openInvitation(f.app, `qin_${'A'.repeat(43)}`)).toBeUndefined();
  });

  it('joining with an existing account takes its password and never replaces it', async () => {
    const globex = await f.member('gus@globex.test', 'globex');
    await createOAuthAdmin(f.admin).setPassword('mia@acme.test', 'mia has a password');
    const invitation = await createInvitation(f.app, globex, { email: 'mia@acme.test', role: 'member' });
    await expect(
      acceptInvitation(f.app, { token: invitation.token, name: 'Mallory', password: 'taken over password' }),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    // Refused without using up the link.
    expect(await openInvitation(f.app, invitation.token)).toBeDefined();
    await acceptInvitation(f.app, { token: invitation.token, name: 'Mallory', password: 'mia has a password' });
    expect((await f.member('mia@acme.test', 'globex')).name).toBe('Mia');
    // A second, stale invitation of a member changes nothing.
    const stale = await createInvitation(f.app, globex, { email: 'other@globex.test', role: 'member' });
    await acceptInvitation(f.app, { token: stale.token, name: 'O', password: 'other has a password' });
    await f.admin.updateTable('identity.invitations').set({ accepted_at: null }).where('id', '=', stale.id).execute();
    await expect(
      acceptInvitation(f.app, { token: stale.token, name: 'O', password: 'other has a password' }),
    ).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  });

  it('members cannot invite; another org cannot see or revoke the invitations', async () => {
    const mia = await f.member('mia@acme.test', 'acme');
    await expect(createInvitation(f.app, mia, { email: 'x@acme.test', role: 'member' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(listInvitations(f.app, mia)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    const owner = await f.member('owner@acme.test', 'acme');
    const mine = await createInvitation(f.app, owner, { email: 'y@acme.test', role: 'member' });
    const gus = await f.member('gus@globex.test', 'globex');
    expect((await listInvitations(f.app, gus)).map((i) => i.id)).not.toContain(mine.id);
    await expect(revokeInvitation(f.app, gus, mine.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(createInvitation(f.app, owner, { email: 'admin@acme.test', role: 'member' })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
    });
  });
});
