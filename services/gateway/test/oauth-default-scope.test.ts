import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeJwt } from 'jose';
import { pkcePair } from './oauth-browser.js';
import { oauthRequests, PASSWORD, startOAuthGateway } from './oauth-requests.js';

// An authorization request without `scope` gets Quarry's documented default, read + write, shown
// on the consent page like any other request (not a sign-in that ends in access_denied).

let gateway: Awaited<ReturnType<typeof startOAuthGateway>>;
let oauth: ReturnType<typeof oauthRequests>;

beforeAll(async () => {
  gateway = await startOAuthGateway();
  oauth = oauthRequests(gateway);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

/** Runs a request without `scope` through sign-in and consent; the consent page and the tokens. */
async function withoutScope(redirectUri: string, registration: Record<string, unknown> = {}) {
  const clientId = await oauth.registered([redirectUri], registration);
  const pkce = pkcePair();
  const browser = oauth.browser();
  const url = oauth.authorizeUrl({ client_id: clientId, redirect_uri: redirectUri }, pkce.challenge);
  expect(new URL(url).searchParams.has('scope')).toBe(false);
  const login = await browser.follow(url, redirectUri);
  const signedIn = await browser.request(`${login.url}/login`, {
    form: { csrf: browser.field(login.page!.html, 'csrf')!, email: 'ada@acme.test', password: PASSWORD },
  });
  const consent = await browser.follow(signedIn.location!, redirectUri);
  expect(consent.page?.status).toBe(200);
  const decided = await browser.request(`${consent.url}/consent`, {
    form: {
      csrf: browser.field(consent.page!.html, 'csrf')!,
      org: browser.field(consent.page!.html, 'org')!,
      decision: 'allow',
    },
  });
  const callback = new URL((await browser.follow(decided.location!, redirectUri)).url);
  expect(callback.searchParams.get('error')).toBeNull();
  const tokens = await oauth.token({
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code')!,
    code_verifier: pkce.verifier,
    redirect_uri: redirectUri,
    client_id: clientId,
    resource: gateway.url,
  });
  return { consentHtml: consent.page!.html, tokens };
}

describe('an authorization request without scope', () => {
  it('reaches the consent page, which offers read and write, and ends with a read + write token', async () => {
    const { consentHtml, tokens } = await withoutScope('https://claude.ai/api/mcp/auth_callback');
    expect(consentHtml).toContain('Allow Test client to use Quarry?');
    expect(consentHtml).toContain('<code>quarry:read</code>');
    expect(consentHtml).toContain('<code>quarry:write</code>');
    expect(consentHtml).not.toContain('quarry:admin');
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('quarry:read quarry:write');
    expect(decodeJwt(tokens.body.access_token as string).scope).toBe('quarry:read quarry:write');
    expect((await oauth.ping(tokens.body.access_token as string)).status).toBe(200);
  });

  it('does the same for a native client', async () => {
    const { tokens } = await withoutScope('http://127.0.0.1:8976/callback');
    expect(tokens.body.scope).toBe('quarry:read quarry:write');
  });

  it('gets only what a client registered, when it registered a scope', async () => {
    const { consentHtml, tokens } = await withoutScope('https://app.example/callback', { scope: 'quarry:read' });
    expect(consentHtml).not.toContain('<code>quarry:write</code>');
    expect(tokens.body.scope).toBe('quarry:read');
  });
});
