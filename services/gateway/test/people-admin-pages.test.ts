import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { type PeopleApp, startPeopleApp } from './people-app.js';
import { type FormBrowser, formBrowser } from './people-browser-forms.js';

// The admin and operations pages over inject(): admins only (members get 403, the operations page
// is a 404 to anyone but the operator org's admins), another org's ids answered with the one 404
// page, the logs filtered and paged, and their CSV export formula-safe.

let app: PeopleApp;
const ids = { mia: '', gus: '', acme: '' };
let adam: FormBrowser;
let mia: FormBrowser;
let gus: FormBrowser;

beforeAll(async () => {
  app = await startPeopleApp({ seed: true, env: { QUARRY_OPERATOR_ORG: 'acme' } });
  const user = (email: string) =>
    app.admin.selectFrom('identity.users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  ids.mia = (await user('mia@acme.test')).id;
  ids.gus = (await user('gus@globex.test')).id;
  ids.acme = (
    await app.admin
      .selectFrom('identity.organizations')
      .select('id')
      .where('slug', '=', 'acme')
      .executeTakeFirstOrThrow()
  ).id;
  await sql`insert into gateway.mcp_tool_call_log (occurred_at, org_id, user_id, request_id, tool, duration_ms, outcome, error_code, argument_bytes)
    select now() - make_interval(secs => 200 - g), ${ids.acme}, ${ids.mia}, 'req-' || g, 'search', 2, case when g % 5 = 0 then 'tool_error' else 'ok' end,
      case when g % 5 = 0 then '=cmd|calc' end, 3
    from generate_series(1, 60) g`.execute(app.admin);
  adam = formBrowser(app.app);
  await adam.signIn('admin@acme.test');
  mia = formBrowser(app.app);
  await mia.signIn('mia@acme.test');
  gus = formBrowser(app.app);
  await gus.signIn('gus@globex.test');
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const ADMIN_PAGES = [
  '/app/admin',
  '/app/admin/members',
  '/app/admin/invitations',
  '/app/admin/service-accounts',
  '/app/admin/oauth-clients',
  '/app/admin/audit',
  '/app/admin/tool-calls',
  '/app/admin/usage',
  '/app/admin/audit/export.csv',
  '/app/admin/tool-calls/export.csv',
];

describe('admin pages', () => {
  it('open for admins and are refused to members', async () => {
    for (const path of ADMIN_PAGES) {
      expect([path, (await adam.get(path)).statusCode]).toEqual([path, 200]);
      expect([path, (await mia.get(path)).statusCode]).toEqual([path, 403]);
    }
  });

  it("change a member's role and remove a member; another org's user is the 404 page", async () => {
    await adam.get('/app/admin/members');
    expect((await adam.post(`/app/admin/members/${ids.gus}/role`, { role: 'admin' })).statusCode).toBe(404);
    await adam.get('/app/admin/members');
    expect((await adam.post(`/app/admin/members/${ids.gus}/remove`, {})).statusCode).toBe(404);
    await mia.get('/app/connect');
    expect((await mia.post(`/app/admin/members/${ids.mia}/role`, { role: 'admin' })).statusCode).toBe(403);
    await adam.get('/app/admin/members');
    expect((await adam.post(`/app/admin/members/${ids.mia}/role`, { role: 'admin' })).statusCode).toBe(303);
    expect((await adam.get('/app/admin/members')).body).toMatch(
      /id="role-[^"]+" name="role"><option value="owner">owner<\/option><option value="admin" selected>/,
    );
    await adam.post(`/app/admin/members/${ids.mia}/role`, { role: 'member' });
  });

  it('create, rotate and revoke service accounts; another org cannot touch them', async () => {
    await adam.get('/app/admin/service-accounts');
    const created = await adam.post('/app/admin/service-accounts', { name: 'etl', 'scope:quarry:read': 'on' });
    expect(created.statusCode).toBe(201);
    const secret = /id="sa-secret"[^>]*value="([^"]+)"/.exec(created.body)![1]!;
    const clientId = /id="sa-client-id"[^>]*value="([^"]+)"/.exec(created.body)![1]!;
    expect(secret).toMatch(/^qss_/);
    expect((await adam.get('/app/admin/service-accounts')).body).not.toContain(secret);
    await gus.get('/app/admin/service-accounts');
    expect((await gus.post(`/app/admin/service-accounts/${clientId}/rotate`, {})).statusCode).toBe(404);
    await gus.get('/app/admin/service-accounts');
    expect((await gus.post(`/app/admin/service-accounts/${clientId}/revoke`, {})).statusCode).toBe(404);
    await adam.get('/app/admin/service-accounts');
    const rotated = await adam.post(`/app/admin/service-accounts/${clientId}/rotate`, {});
    expect(/id="sa-secret"[^>]*value="([^"]+)"/.exec(rotated.body)![1]).not.toBe(secret);
    expect((await adam.post(`/app/admin/service-accounts/${clientId}/revoke`, {})).statusCode).toBe(303);
  });

  it("revokes an OAuth client's grants in the org only; another org's client id is the 404 page", async () => {
    const gusOrg = await app.admin
      .selectFrom('identity.organizations')
      .select('id')
      .where('slug', '=', 'globex')
      .executeTakeFirstOrThrow();
    await app.admin
      .insertInto('identity.oauth_grants')
      .values({
        org_id: gusOrg.id,
        user_id: ids.gus,
        grant_id: 'g-gus',
        client_id: 'cursor',
        client_name: 'Cursor',
        scopes: ['quarry:read'],
      })
      .execute();
    await adam.get('/app/admin/oauth-clients');
    expect((await adam.post('/app/admin/oauth-clients/cursor/revoke', {})).statusCode).toBe(404);
    expect((await gus.get('/app/admin/oauth-clients')).body).toContain('Cursor');
  });
});

describe('logs', () => {
  it('filter and page the tool-call log, newest first', async () => {
    const first = await adam.get('/app/admin/tool-calls?outcome=tool_error');
    expect(first.body).toContain('req-60');
    expect(first.body).not.toContain('req-59<');
    const all = await adam.get('/app/admin/tool-calls');
    const older = /<a href="([^"]+)" rel="next">/.exec(all.body)![1]!.replace(/&amp;/g, '&');
    expect(older).toMatch(/^\/app\/admin\/tool-calls\?before=\d+$/);
    const next = await adam.get(older);
    expect(next.body).toContain('req-10<');
    expect(next.body).not.toContain('req-11<');
  });

  it('export CSV as an attachment, with the filters, formula cells neutralised', async () => {
    const csv = await adam.get('/app/admin/tool-calls/export.csv?outcome=tool_error');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="quarry-tool-calls-acme.csv"');
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe(
      'id,occurredAt,tool,outcome,errorCode,durationMs,email,tokenId,requestId,inputTokens,outputTokens',
    );
    expect(lines).toHaveLength(13);
    expect(lines[1]).toContain(",tool_error,'=cmd|calc,");
    expect((await gus.get('/app/admin/tool-calls/export.csv')).body.trim().split('\n')).toHaveLength(1);
    const audit = await adam.get('/app/admin/audit/export.csv?event=member_role_changed');
    expect(audit.body).toContain('member_role_changed');
  });
});

describe('operations', () => {
  it("is for the operator org's admins; anyone else gets the 404 page", async () => {
    const page = await adam.get('/app/operations');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Indexer lag');
    expect(page.body).toContain('<td>database</td><td>ok</td>');
    expect(page.body).toContain('Set QUARRY_GRAFANA_URL');
    const missing = await mia.get('/app/no-such-page');
    const refused = await mia.get('/app/operations');
    expect(refused.statusCode).toBe(404);
    expect(refused.body).toBe(missing.body.replace('/app/no-such-page', '/app/operations'));
    expect((await gus.get('/app/operations')).statusCode).toBe(404);
  });
});
