import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type PeopleApp, startPeopleApp } from './people-app.js';
import { formBrowser } from './people-browser-forms.js';

// The preferences pages over inject(): output preferences and default depth (through the plan
// engine's handlers), personal access tokens (shown once, revoked), connected apps; members vs
// admins, and another person's or org's ids answered with the app's one 404 page.

let app: PeopleApp;
beforeAll(async () => {
  app = await startPeopleApp({ seed: true });
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const tokenOf = (html: string) => /id="new-token-value"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('output preferences and default depth', () => {
  it('admins change them; members read them and are refused at the service', async () => {
    const adam = formBrowser(app.app);
    await adam.signIn('admin@acme.test');
    const before = await adam.get('/app/preferences');
    expect(before.statusCode).toBe(200);
    expect(before.body).toContain('<option value="conversation" selected>');
    const saved = await adam.post('/app/preferences', {
      mediaType: 'word',
      depth: 'deep',
      instructions: '<b>British</b> spelling',
    });
    expect(saved.statusCode).toBe(200);
    expect(saved.body).toContain('<option value="word" selected>');
    expect(saved.body).toContain('<option value="deep" selected>');
    expect(saved.body).toContain('&lt;b&gt;British&lt;/b&gt; spelling</textarea>');
    const bad = await adam.post('/app/preferences', { mediaType: 'pdf' });
    expect(bad.statusCode).toBe(400);

    const mia = formBrowser(app.app);
    await mia.signIn('mia@acme.test');
    const read = await mia.get('/app/preferences');
    expect(read.body).toContain('<option value="word" selected>');
    expect(read.body).toContain('name="mediaType" disabled');
    expect((await mia.post('/app/preferences', { mediaType: 'html' })).statusCode).toBe(403);
    expect((await mia.get('/app/preferences')).body).toContain('<option value="word" selected>');

    const gus = formBrowser(app.app);
    await gus.signIn('gus@globex.test');
    expect((await gus.get('/app/preferences')).body).toContain('<option value="conversation" selected>');
  });
});

describe('personal access tokens', () => {
  it('creates one with scopes and tools, shows it once, lists it without the value, revokes it', async () => {
    const mia = formBrowser(app.app);
    await mia.signIn('mia@acme.test');
    const page = await mia.get('/app/preferences/tokens');
    expect(page.body).not.toContain('scope:quarry:admin');
    const created = await mia.post('/app/preferences/tokens', {
      name: 'laptop',
      'scope:quarry:read': 'on',
      'tool:search': 'on',
      'tool:fetch': 'on',
      expiry: '30',
    });
    expect(created.statusCode).toBe(201);
    const token = tokenOf(created.body);
    expect(token).toMatch(/^qry_/);
    const listed = await mia.get('/app/preferences/tokens');
    expect(listed.body).toContain('laptop');
    expect(listed.body).toContain('search, fetch');
    expect(listed.body).not.toContain(token);
    // The token works on the MCP endpoint until revoked.
    const ping = () =>
      app.app.inject({
        method: 'POST',
        url: '/mcp',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      });
    expect((await ping()).statusCode).toBe(200);
    const id = /action="\/app\/preferences\/tokens\/([0-9a-f-]{36})\/revoke"/.exec(listed.body)![1]!;

    const adam = formBrowser(app.app);
    await adam.signIn('admin@acme.test');
    const someoneElses = await adam.post(`/app/preferences/tokens/${id}/revoke`, {});
    expect(someoneElses.statusCode).toBe(404);
    const gus = formBrowser(app.app);
    await gus.signIn('gus@globex.test');
    const foreign = await gus.post(`/app/preferences/tokens/${id}/revoke`, {});
    expect(foreign.statusCode).toBe(404);
    const missing = await gus.post('/app/preferences/tokens/00000000-0000-4000-8000-000000000000/revoke', {});
    expect(foreign.body).toBe(missing.body);

    await mia.get('/app/preferences/tokens');
    const revoked = await mia.post(`/app/preferences/tokens/${id}/revoke`, {});
    expect(revoked.statusCode).toBe(303);
    expect((await mia.get('/app/preferences/tokens')).body).toContain('revoked');
    expect((await ping()).statusCode).toBe(401);
  });

  it('refuses a token without scopes, and an admin scope to a member (the field is not even offered)', async () => {
    const mia = formBrowser(app.app);
    await mia.signIn('mia@acme.test');
    await mia.get('/app/preferences/tokens');
    expect((await mia.post('/app/preferences/tokens', { name: 'none' })).statusCode).toBe(400);
    expect((await mia.post('/app/preferences/tokens', { name: 'x', 'scope:quarry:admin': 'on' })).statusCode).toBe(403);
  });
});

describe('connected apps', () => {
  it('lists the person’s grants and disconnects them; other people and orgs get the 404 page', async () => {
    const acme = await app.admin
      .selectFrom('identity.memberships as m')
      .innerJoin('identity.users as u', 'u.id', 'm.user_id')
      .select(['m.org_id', 'm.user_id'])
      .where('u.email', '=', 'mia@acme.test')
      .executeTakeFirstOrThrow();
    const grant = await app.admin
      .insertInto('identity.oauth_grants')
      .values({
        org_id: acme.org_id,
        user_id: acme.user_id,
        grant_id: 'g-claude',
        client_id: 'https://claude.ai/oauth/mcp-oauth-client-metadata',
        client_name: '<i>Claude</i>',
        scopes: ['quarry:read'],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const mia = formBrowser(app.app);
    await mia.signIn('mia@acme.test');
    const page = await mia.get('/app/preferences/apps');
    expect(page.body).toContain('&lt;i&gt;Claude&lt;/i&gt;');
    expect(page.body).not.toContain('<i>Claude</i>');
    const adam = formBrowser(app.app);
    await adam.signIn('admin@acme.test');
    expect((await adam.post(`/app/preferences/apps/${grant.id}/revoke`, {})).statusCode).toBe(404);
    const gus = formBrowser(app.app);
    await gus.signIn('gus@globex.test');
    expect((await gus.post(`/app/preferences/apps/${grant.id}/revoke`, {})).statusCode).toBe(404);
    expect((await mia.post(`/app/preferences/apps/${grant.id}/revoke`, {})).statusCode).toBe(303);
    expect((await mia.get('/app/preferences/apps')).body).toContain('You have not connected any app yet.');
  });
});
