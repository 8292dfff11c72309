import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type PeopleApp, startPeopleApp } from './people-app.js';
import { formBrowser } from './people-browser-forms.js';

// The onboarding pages over inject(): first-run setup (only while no organization exists, CSRF
// checked, the sign-in page leading to it until then), invitations (admins only, the link shown
// once, accepted once) and the connect page.

let app: PeopleApp;
beforeAll(async () => {
  app = await startPeopleApp();
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const linkOf = (html: string) => /id="invitation-link"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? '';

describe('first run → invite → accept → connect', () => {
  it('sends the sign-in page to the setup while no organization exists', async () => {
    for (const path of ['/app/sign-in', '/app/sign-in?next=%2Fapp%2Fplans']) {
      const answer = await formBrowser(app.app).get(path);
      expect([path, answer.statusCode, answer.headers.location]).toEqual([path, 303, '/app/setup']);
    }
  });

  it('sets up the first org only with a valid form token, then never again', async () => {
    const owner = formBrowser(app.app);
    const form = await owner.get('/app/setup');
    expect(form.statusCode).toBe(200);
    expect(form.headers['content-security-policy']).toContain("script-src 'self'");
    const values = {
      orgName: 'Acme Research',
      orgSlug: 'acme',
      name: 'Olive',
      email: 'olive@acme.test',
      password: 'a long enough password',
    };
    // A form posted from another site carries no valid token, or a foreign Origin.
    expect((await owner.post('/app/setup', values, { page: 'name="csrf" value="forged"' })).statusCode).toBe(403);
    await owner.get('/app/setup');
    expect((await owner.post('/app/setup', values, { origin: 'https://evil.test' })).statusCode).toBe(403);
    await owner.get('/app/setup');
    const short = await owner.post('/app/setup', { ...values, password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('at least 12 characters');
    expect(short.body).not.toContain('short"');
    const done = await owner.post('/app/setup', values);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/app/connect');
    expect(owner.cookies.has('quarry_session')).toBe(true);

    const stranger = formBrowser(app.app);
    expect((await stranger.get('/app/setup')).statusCode).toBe(404);
    // Once set up, the sign-in page is the sign-in form again, never the setup.
    const signIn = await stranger.get('/app/sign-in');
    expect([signIn.statusCode, signIn.headers.location]).toEqual([200, undefined]);
    expect(signIn.body).toContain('Sign in to Quarry');
    expect((await stranger.post('/app/setup', { ...values, orgSlug: 'takeover' })).statusCode).toBe(403);

    const connect = await owner.get('/app/connect');
    expect(connect.statusCode).toBe(200);
    expect(connect.body).toContain(`value="${app.base}/mcp"`);
    expect(connect.body).toContain(`claude mcp add --transport http quarry ${app.base}/mcp`);
    expect(connect.body).toContain('cursor://anysphere.cursor-deeplink/mcp/install?name=quarry&amp;config=');
    expect(connect.body).toContain('vscode:mcp/install?');
    expect(connect.body).toContain('<script type="module" src="/app/assets/copy-button.js"></script>');
  });

  it('an admin invites, sees the link once; the invitee accepts once and is signed in', async () => {
    const owner = formBrowser(app.app);
    await owner.signIn('olive@acme.test', 'a long enough password');
    await owner.get('/app/admin/invitations');
    const created = await owner.post('/app/admin/invitations', { email: 'mia@acme.test', role: 'member' });
    expect(created.statusCode).toBe(201);
    const link = linkOf(created.body);
    expect(link).toMatch(new RegExp(`^${app.base}/app/invite/qin_`));
    const listed = await owner.get('/app/admin/invitations');
    expect(listed.body).toContain('mia@acme.test');
    expect(listed.body).not.toContain(link);

    const mia = formBrowser(app.app);
    const path = new URL(link).pathname;
    const invite = await mia.get(path);
    expect(invite.statusCode).toBe(200);
    expect(invite.body).toContain('Join Acme Research on Quarry');
    const joined = await mia.post(path, { name: 'Mia', password: 'mia picks a password' });
    expect(joined.statusCode).toBe(303);
    expect(joined.headers.location).toBe('/app/connect');
    expect((await mia.get('/app/connect')).statusCode).toBe(200);

    const again = formBrowser(app.app);
    const used = await again.get(path);
    expect(used.statusCode).toBe(404);
    expect(used.body).toContain('not valid any more');
  });

  it('members cannot open the invitations page or invite', async () => {
    const mia = formBrowser(app.app);
    await mia.signIn('mia@acme.test', 'mia picks a password');
    expect((await mia.get('/app/admin/invitations')).statusCode).toBe(403);
    const page = await mia.get('/app/connect');
    const refused = await mia.post(
      '/app/admin/invitations',
      { email: 'x@acme.test', role: 'admin' },
      { page: page.body },
    );
    expect(refused.statusCode).toBe(403);
  });

  it('every page sends a stranger to sign in', async () => {
    const stranger = formBrowser(app.app);
    for (const path of ['/app/connect', '/app/admin/invitations', '/app/preferences/tokens']) {
      const answer = await stranger.get(path);
      expect(answer.statusCode).toBe(303);
      expect(answer.headers.location).toBe(`/app/sign-in?next=${encodeURIComponent(path)}`);
    }
  });
});
