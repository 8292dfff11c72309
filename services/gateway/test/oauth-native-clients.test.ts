import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pkcePair } from './oauth-browser.js';
import { oauthRequests, startOAuthGateway } from './oauth-requests.js';

// Desktop and native clients (RFC 8252) through Dynamic Client Registration: a private-use
// scheme (Cursor), loopback redirects whose port changes per run (VS Code, Claude Code), and the
// application_type Quarry infers when a client sends none. Every request goes through the
// gateway's HTTP layer with app.inject().

let gateway: Awaited<ReturnType<typeof startOAuthGateway>>;
let oauth: ReturnType<typeof oauthRequests>;

beforeAll(async () => {
  gateway = await startOAuthGateway();
  oauth = oauthRequests(gateway);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

// Cursor registers its own scheme beside a web and a loopback callback, and no application_type.
const CURSOR = {
  client_name: 'Cursor',
  redirect_uris: [
    'cursor://anysphere.cursor-mcp/oauth/callback',
    'https://www.cursor.com/agents/mcp/oauth/callback',
    'http://localhost:8787/callback',
  ],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};
const CURSOR_CALLBACK = 'cursor://anysphere.cursor-mcp/oauth/callback';

// VS Code registers a loopback redirect on one port and listens on another at each sign-in.
const VSCODE = {
  client_name: 'Visual Studio Code',
  redirect_uris: ['http://127.0.0.1:33418/', 'https://vscode.dev/redirect'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

describe('Cursor', () => {
  it('registers its private-use scheme, and is inferred a native client', async () => {
    const { status, body } = await oauth.register(CURSOR);
    expect(status).toBe(201);
    expect(body).toMatchObject({ application_type: 'native', redirect_uris: CURSOR.redirect_uris });
  });

  it('signs in, consents and gets tokens at cursor://, which then call tools', async () => {
    const clientId = (await oauth.register(CURSOR)).body.client_id as string;
    const pkce = pkcePair();
    const url = oauth.authorizeUrl(
      { client_id: clientId, redirect_uri: CURSOR_CALLBACK, scope: 'quarry:read quarry:write offline_access' },
      pkce.challenge,
    );
    const browser = oauth.browser();
    const login = await browser.follow(url, CURSOR_CALLBACK);
    expect(login.page?.html).toContain('Sign in to Quarry');
    const signedIn = await browser.request(`${login.url}/login`, {
      form: {
        csrf: browser.field(login.page!.html, 'csrf')!,
        email: 'ada@acme.test',
        password: 'correct horse battery staple',
      },
    });
    const consent = await browser.follow(signedIn.location!, CURSOR_CALLBACK);
    // The page says where the user goes back to, and its forms may lead there (CSP form-action).
    expect(consent.page?.html).toContain('cursor://anysphere.cursor-mcp');
    expect(consent.page?.headers.get('content-security-policy')).toMatch(/form-action 'self' http: https: cursor:;/);
    const decided = await browser.request(`${consent.url}/consent`, {
      form: {
        csrf: browser.field(consent.page!.html, 'csrf')!,
        org: browser.field(consent.page!.html, 'org')!,
        decision: 'allow',
      },
    });
    const callback = new URL((await browser.follow(decided.location!, CURSOR_CALLBACK)).url);
    expect(`${callback.protocol}//${callback.host}${callback.pathname}`).toBe(CURSOR_CALLBACK);
    expect(callback.searchParams.get('state')).toBe('st');
    expect(callback.searchParams.get('iss')).toBe(gateway.base);

    const tokens = await oauth.token({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      code_verifier: pkce.verifier,
      redirect_uri: CURSOR_CALLBACK,
      client_id: clientId,
      resource: gateway.url,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', scope: expect.stringContaining('quarry:write') });
    expect(tokens.body.refresh_token).toEqual(expect.any(String));
    const ping = await oauth.ping(tokens.body.access_token as string);
    expect(ping.status).toBe(200);
    expect(ping.text).toContain('"orgSlug":"acme"');
  });
});

describe('loopback redirects', () => {
  it("match VS Code's registered loopback on any port, and the token request names that port", async () => {
    const { status, body } = await oauth.register(VSCODE);
    expect(status).toBe(201);
    expect(body.application_type).toBe('native');
    const clientId = body.client_id as string;
    const perRun = 'http://127.0.0.1:54321/';
    const { code, verifier, callback } = await oauth.codeFor(clientId, perRun);
    expect(callback.port).toBe('54321');
    const tokens = await oauth.token({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: perRun,
      client_id: clientId,
      resource: gateway.url,
    });
    expect(tokens.status).toBe(200);
    expect((await oauth.ping(tokens.body.access_token as string)).status).toBe(200);
  });

  it.each([
    ['localhost, as Claude Code registers it', 'http://localhost:41234/callback', 'http://localhost:50001/callback'],
    ['[::1]', 'http://[::1]:8123/', 'http://[::1]:9001/'],
    ['127.0.0.1 with a path', 'http://127.0.0.1:6274/oauth/callback', 'http://127.0.0.1:6999/oauth/callback'],
  ])('match on %s on a port other than the registered one', async (_name, registered, used) => {
    const clientId = await oauth.registered([registered]);
    const { code, callback } = await oauth.codeFor(clientId, used);
    expect(callback.toString().startsWith(used)).toBe(true);
    expect(code).not.toBe('');
  });

  it('do not match another path, host or scheme on a loopback port', async () => {
    const clientId = await oauth.registered(VSCODE.redirect_uris);
    for (const other of ['http://127.0.0.1:54321/other', 'http://localhost:54321/', 'https://127.0.0.1:54321/']) {
      const answer = await oauth.browser().request(oauth.authorizeUrl({ client_id: clientId, redirect_uri: other }));
      expect(answer.status).toBe(400);
      expect(answer.location).toBeUndefined();
      expect(answer.html).toContain('This app asked to send you somewhere it did not register');
    }
  });

  it('match on any port only for native clients: a client that says it is web gets exact matching', async () => {
    const { body } = await oauth.register({ ...VSCODE, application_type: 'web' });
    expect(body.application_type).toBe('web');
    const answer = await oauth
      .browser()
      .request(oauth.authorizeUrl({ client_id: body.client_id as string, redirect_uri: 'http://127.0.0.1:54321/' }));
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
  });
});

describe('a web client', () => {
  it('is inferred web from https redirects, which must match exactly', async () => {
    const { body } = await oauth.register({
      ...CURSOR,
      client_name: 'claude.ai',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
    });
    expect(body.application_type).toBe('web');
    const { callback } = await oauth.codeFor(body.client_id as string, 'https://claude.ai/api/mcp/auth_callback');
    expect(callback.searchParams.get('code')).toBeTruthy();
    const other = await oauth.browser().request(
      oauth.authorizeUrl({
        client_id: body.client_id as string,
        redirect_uri: 'https://claude.ai/api/mcp/auth_callback/other',
      }),
    );
    expect(other.status).toBe(400);
  });
});
