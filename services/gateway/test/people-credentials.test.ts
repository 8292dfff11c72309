import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { listConnectedApps, revokeConnectedApp } from '../src/identity/connected-apps.js';
import { listMembers, removeMember, setMemberRole } from '../src/identity/members.js';
import { listOrgOAuthClients, revokeOrgOAuthClient } from '../src/identity/org-oauth-clients.js';
import { orgServiceAccounts } from '../src/identity/org-service-accounts.js';
import { createOwnToken, listOwnTokens, revokeOwnToken } from '../src/identity/personal-tokens.js';
import { type PeopleFixture, peopleFixture } from './people-fixtures.js';

// What the preferences and admin pages do with credentials and members, at the service
// boundary: members vs admins checked here, another org's ids answered like missing ones.

let f: PeopleFixture;
beforeAll(async () => {
  f = await peopleFixture();
});
afterAll(async () => {
  await f?.close();
});

/** A grant as the consent page writes it, and one tool call made under it. */
async function grant(email: string, slug: string, clientId: string, clientName: string) {
  const member = await f.member(email, slug);
  const row = await f.admin
    .insertInto('identity.oauth_grants')
    .values({
      org_id: member.orgId,
      user_id: member.userId,
      grant_id: `grant-${clientId}-${email}`,
      client_id: clientId,
      client_name: clientName,
      scopes: ['quarry:read'],
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`insert into gateway.mcp_tool_call_log (occurred_at, org_id, user_id, token_id, request_id, tool, duration_ms, outcome, argument_bytes)
    values (now(), ${member.orgId}, ${member.userId}, ${row.id}, 'r1', 'search', 3, 'ok', 10)`.execute(f.admin);
  return row.id;
}

describe('personal access tokens (own)', () => {
  it('creates with scopes and a tool allowlist, shows the value once, lists and revokes only own tokens', async () => {
    const mia = await f.member('mia@acme.test', 'acme');
    const created = await createOwnToken(f.app, mia, { name: 'laptop', scopes: ['quarry:read'], tools: ['search'] });
    expect(created.token).toMatch(/^qry_/);
    const listed = await listOwnTokens(f.app, mia);
    expect(listed).toEqual([expect.objectContaining({ id: created.id, scopes: ['quarry:read'], tools: ['search'] })]);
    expect(JSON.stringify(listed)).not.toContain(created.token);

    const adam = await f.member('admin@acme.test', 'acme');
    expect(await listOwnTokens(f.app, adam)).toEqual([]);
    await expect(revokeOwnToken(f.app, adam, created.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const gus = await f.member('gus@globex.test', 'globex');
    await expect(revokeOwnToken(f.app, gus, created.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });

    await revokeOwnToken(f.app, mia, created.id);
    expect((await listOwnTokens(f.app, mia))[0]!.revokedAt).toBeInstanceOf(Date);
  });

  it('refuses an admin-scope token to a member, unknown tools and scopes', async () => {
    const mia = await f.member('mia@acme.test', 'acme');
    await expect(createOwnToken(f.app, mia, { name: 'x', scopes: ['quarry:admin'] })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(
      createOwnToken(f.app, mia, { name: 'x', scopes: ['quarry:read'], tools: ['no_such_tool'] }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(createOwnToken(f.app, mia, { name: 'x', scopes: ['root'] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    const adam = await f.member('admin@acme.test', 'acme');
    expect((await createOwnToken(f.app, adam, { name: 'ops', scopes: ['quarry:admin'] })).scopes).toEqual([
      'quarry:admin',
    ]);
  });
});

describe('connected apps (own OAuth grants)', () => {
  it('lists the client, scopes, tools and last use; revokes own; another person or org gets a 404', async () => {
    const id = await grant('mia@acme.test', 'acme', 'claude-client', 'Claude');
    const mia = await f.member('mia@acme.test', 'acme');
    const [app] = await listConnectedApps(f.app, mia);
    expect(app).toMatchObject({ id, clientId: 'claude-client', clientName: 'Claude', scopes: ['quarry:read'] });
    expect(app!.lastUsedAt).toBeInstanceOf(Date);
    await expect(revokeConnectedApp(f.app, await f.member('admin@acme.test', 'acme'), id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(revokeConnectedApp(f.app, await f.member('gus@globex.test', 'globex'), id)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await revokeConnectedApp(f.app, mia, id);
    expect(await listConnectedApps(f.app, mia)).toEqual([]);
  });
});

describe('members and roles', () => {
  it('admins list and change roles; members may not; owners are protected', async () => {
    const mia = await f.member('mia@acme.test', 'acme');
    const adam = await f.member('admin@acme.test', 'acme');
    const olive = await f.member('owner@acme.test', 'acme');
    await expect(listMembers(f.app, mia)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect((await listMembers(f.app, adam)).map((m) => m.email)).toEqual([
      'admin@acme.test',
      'mia@acme.test',
      'owner@acme.test',
    ]);
    await expect(setMemberRole(f.app, mia, { userId: adam.userId, role: 'member' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(setMemberRole(f.app, adam, { userId: olive.userId, role: 'member' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(setMemberRole(f.app, olive, { userId: olive.userId, role: 'admin' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await setMemberRole(f.app, adam, { userId: mia.userId, role: 'admin' });
    expect((await f.member('mia@acme.test', 'acme')).role).toBe('admin');
    await setMemberRole(f.app, adam, { userId: mia.userId, role: 'member' });
  });

  it("another org's member is missing, to change and to remove", async () => {
    const adam = await f.member('admin@acme.test', 'acme');
    const gus = await f.member('gus@globex.test', 'globex');
    await expect(setMemberRole(f.app, adam, { userId: gus.userId, role: 'member' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(removeMember(f.app, adam, gus.userId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('removing a member takes their tokens with the membership', async () => {
    const olive = await f.member('owner@acme.test', 'acme');
    await f.admin.insertInto('identity.users').values({ email: 'temp@acme.test', name: 'Temp' }).execute();
    const temp = await f.admin
      .selectFrom('identity.users')
      .select('id')
      .where('email', '=', 'temp@acme.test')
      .executeTakeFirstOrThrow();
    await f.admin.insertInto('identity.memberships').values({ org_id: olive.orgId, user_id: temp.id }).execute();
    await createOwnToken(f.app, await f.member('temp@acme.test', 'acme'), { name: 't', scopes: ['quarry:read'] });
    await removeMember(f.app, olive, temp.id);
    const left = await f.admin
      .selectFrom('identity.personal_access_tokens')
      .select('id')
      .where('user_id', '=', temp.id)
      .execute();
    expect(left).toEqual([]);
  });
});

describe('service accounts and OAuth clients (admin)', () => {
  it('creates, rotates and revokes in the org; members refused; another org answers NOT_FOUND', async () => {
    const adam = await f.member('admin@acme.test', 'acme');
    const mia = await f.member('mia@acme.test', 'acme');
    const gus = await f.member('gus@globex.test', 'globex');
    await expect(orgServiceAccounts.list(f.app, mia)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    const created = await orgServiceAccounts.create(f.app, adam, { name: 'etl', scopes: 'quarry:read' });
    expect(created.clientSecret).toMatch(/^qss_/);
    expect((await orgServiceAccounts.list(f.app, adam)).map((a) => a.clientId)).toEqual([created.clientId]);
    expect(await orgServiceAccounts.list(f.app, gus)).toEqual([]);
    await expect(orgServiceAccounts.rotateSecret(f.app, gus, created.clientId)).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(orgServiceAccounts.revoke(f.app, gus, created.clientId)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const rotated = await orgServiceAccounts.rotateSecret(f.app, adam, created.clientId);
    expect(rotated.clientSecret).not.toBe(created.clientSecret);
    expect((await orgServiceAccounts.revoke(f.app, adam, created.clientId)).revokedAt).toBeInstanceOf(Date);
  });

  it("lists the clients the org's members connected and revokes only this org's grants", async () => {
    await grant('admin@acme.test', 'acme', 'cursor-client', 'Cursor');
    await grant('gus@globex.test', 'globex', 'cursor-client', 'Cursor');
    const adam = await f.member('admin@acme.test', 'acme');
    const gus = await f.member('gus@globex.test', 'globex');
    const clients = await listOrgOAuthClients(f.app, adam);
    expect(clients.find((c) => c.clientId === 'cursor-client')).toMatchObject({
      clientName: 'Cursor',
      activeGrants: 1,
    });
    expect(clients.find((c) => c.clientId === 'cursor-client')!.lastUsedAt).toBeInstanceOf(Date);
    await expect(listOrgOAuthClients(f.app, await f.member('mia@acme.test', 'acme'))).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    expect(await revokeOrgOAuthClient(f.app, adam, 'cursor-client')).toEqual({ grants: 1 });
    expect((await listOrgOAuthClients(f.app, gus)).find((c) => c.clientId === 'cursor-client')).toMatchObject({
      activeGrants: 1,
    });
    await expect(revokeOrgOAuthClient(f.app, adam, 'cursor-client')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
