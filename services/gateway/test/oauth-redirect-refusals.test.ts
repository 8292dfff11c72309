import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { oauthRequests, PASSWORD, startOAuthGateway } from './oauth-requests.js';

// Redirect URIs no client may use are refused where they appear: at registration with an error
// body naming the URI, and at authorization with Quarry's error page, never a redirect to them.
// Every OAuth page is Quarry's own (never oidc-provider's stock one), and nothing from the
// request reaches it unescaped.

let gateway: Awaited<ReturnType<typeof startOAuthGateway>>;
let oauth: ReturnType<typeof oauthRequests>;
const GOOD = 'http://127.0.0.1:33418/callback';

beforeAll(async () => {
  gateway = await startOAuthGateway();
  oauth = oauthRequests(gateway);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

const BAD: Array<[string, string, string]> = [
  ['javascript:', 'javascript:alert(document.cookie)', 'uses the javascript: scheme'],
  ['data:', 'data:text/html,<script>alert(1)</script>', 'uses the data: scheme'],
  ['file:', 'file:///etc/passwd', 'uses the file: scheme'],
  ['http to a host that is not loopback', 'http://app.example/callback', 'uses http to a host that is not this device'],
  ['a fragment', 'https://app.example/callback#done', 'has a fragment'],
  ['a fragment on loopback', 'http://127.0.0.1:9/callback#x', 'has a fragment'],
];

/** What an HTML page shows of `text` once escaped. */
const escaped = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

describe('registration', () => {
  it.each(BAD)('refuses %s, naming the URI', async (_name, bad, reason) => {
    const { status, body } = await oauth.register({
      client_name: 'Refused',
      redirect_uris: [GOOD, bad],
      token_endpoint_auth_method: 'none',
    });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toContain(JSON.stringify(bad));
    expect(body.error_description).toContain(reason);
  });

  it('refuses a private-use scheme from a client that says it is web, and says what to send', async () => {
    const { status, body } = await oauth.register({
      client_name: 'Says web',
      application_type: 'web',
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback'],
      token_endpoint_auth_method: 'none',
    });
    expect(status).toBe(400);
    expect(body.error_description).toBe(
      'redirect_uris: "cursor://anysphere.cursor-mcp/oauth/callback" uses a private-use scheme, which only native clients may register; send application_type "native" or none',
    );
  });

  it('refuses https on loopback from a native client, and says what to use instead', async () => {
    const { body } = await oauth.register({
      client_name: 'Native',
      application_type: 'native',
      redirect_uris: ['https://localhost:8443/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toContain('use http://localhost:8443/cb');
  });

  it('keeps a web client with an https loopback redirect working (it is not inferred native)', async () => {
    const { status, body } = await oauth.register({
      client_name: 'Local web app',
      redirect_uris: ['https://localhost:8443/cb', 'http://127.0.0.1:3000/cb'],
      token_endpoint_auth_method: 'none',
    });
    expect(status).toBe(201);
    expect(body.application_type).toBe('web');
  });
});

describe('authorization', () => {
  it.each(BAD)('refuses %s with Quarry’s page, never a redirect', async (_name, bad) => {
    const clientId = await oauth.registered([GOOD]);
    const answer = await oauth.browser().request(oauth.authorizeUrl({ client_id: clientId, redirect_uri: bad }));
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(answer.html).toContain('<h1>This app asked to send you somewhere it did not register</h1>');
    expect(answer.html).toContain(`send you back to ${escaped(bad)}, which is not one of the addresses`);
    expect(answer.html).toContain('<code>invalid_redirect_uri</code>');
    expect(answer.html).not.toContain('oops! something went wrong');
  });

  it('shows an unknown client its own page, saying what to do', async () => {
    const answer = await oauth
      .browser()
      .request(oauth.authorizeUrl({ client_id: 'no-such-client', redirect_uri: GOOD }));
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.html).toContain('Quarry does not know this app');
    expect(answer.html).toContain('Remove Quarry from the app and add it again');
  });

  it('says a sign-in has expired when its interaction is gone', async () => {
    const answer = await oauth.browser().request(`${gateway.base}/oauth/authorize/no-such-interaction`);
    expect(answer.status).toBe(400);
    expect(answer.html).toContain('This sign-in has expired');
    expect(answer.html).toContain('Go back to the app and connect to Quarry again.');
  });

  const PROBE = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
  it.each([
    ['state', { state: PROBE, redirect_uri: 'https://evil.example/cb' }],
    ['redirect_uri', { redirect_uri: `https://evil.example/${PROBE}` }],
    ['client_id', { client_id: PROBE }],
  ])('never reflects markup in %s', async (_name, params) => {
    const clientId = await oauth.registered([GOOD]);
    const answer = await oauth
      .browser()
      .request(oauth.authorizeUrl({ client_id: clientId, redirect_uri: GOOD, ...params }));
    expect(answer.status).toBe(400);
    expect(answer.html).not.toContain('<script>');
    expect(answer.html).not.toContain('<img');
    expect(answer.html).not.toContain('onerror=alert(2)>');
    // The state is the client's, for its redirect: the page does not show it at all.
    if ('state' in params) expect(answer.html).not.toContain(escaped(PROBE));
  });
});

describe('oidc-provider’s other pages', () => {
  it('is Quarry’s sign-out page, and then its signed-out page', async () => {
    const browser = oauth.browser();
    const clientId = await oauth.registered([GOOD]);
    await browser.authorize(oauth.authorizeUrl({ client_id: clientId, redirect_uri: GOOD, scope: 'quarry:read' }), {
      email: 'ada@acme.test',
      password: PASSWORD,
      redirectUri: GOOD,
    });
    const confirm = await browser.request(`${gateway.base}/oauth/logout`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain('<h1>Sign out of Quarry?</h1>');
    expect(confirm.headers.get('x-frame-options')).toBe('DENY');
    const action = /action="([^"]+)"/.exec(confirm.html)![1]!;
    const done = await browser.request(action, {
      form: { xsrf: browser.field(confirm.html, 'xsrf')!, logout: 'yes' },
      origin: gateway.base,
    });
    const page = done.location ? await browser.request(done.location) : done;
    expect(page.html).toContain('<h1>You are signed out of Quarry</h1>');
  });

  it('answers JSON errors without the stock description', async () => {
    const answer = await oauth.token({ grant_type: 'authorization_code', client_id: 'no-such-client', code: 'x' });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'invalid_client' });
    expect(answer.body.error_description).toBe(
      'no client is registered with this client_id: register again (its registration may have been removed)',
    );
  });
});
