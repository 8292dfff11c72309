import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { type IdentityDatabase, loadGatewayConfig } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import { freePort } from './free-port.js';
import { createBrowser } from './oauth-browser.js';
import { memoryProvider } from './oauth-memory-provider.js';
import { startGatewayOnly } from './gateway-only.js';
import { startUpstreamIdp } from './upstream-idp.js';

// Single sign-on end to end: an MCP client → Quarry's authorize → the sign-in page's "Sign in
// with" link → a second, real oidc-provider as the upstream identity provider → back to Quarry →
// consent → token → tools/call as the Quarry user whose email the upstream account has. The
// upstream listens on 127.0.0.2 so the two servers' cookies stay apart, as they would on two hosts.

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
type Upstream = Awaited<ReturnType<typeof startUpstreamIdp>>;
let gateway: Gateway;
let upstream: Upstream;
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  const [port, upstreamPort] = [await freePort(), await freePort()];
  const base = `http://127.0.0.1:${port}`;
  upstream = await startUpstreamIdp({
    host: '127.0.0.2',
    port: upstreamPort,
    clientId: 'quarry',
    clientSecret: 'upstream-client-secret',
    redirectUri: `${base}/oauth/sso/callback`,
    accounts: {
      ada: { email: 'Ada@Acme.test', email_verified: true },
      stranger: { email: 'stranger@elsewhere.test', email_verified: true },
      unverified: { email: 'ada@acme.test', email_verified: false },
      orgless: { email: 'orgless@acme.test', email_verified: true },
    },
  });
  gateway = await startGatewayOnly({
    PORT: String(port),
    QUARRY_PUBLIC_URL: base,
    QUARRY_SSO_ISSUER: upstream.issuer,
    QUARRY_SSO_CLIENT_ID: 'quarry',
    QUARRY_SSO_CLIENT_SECRET: 'upstream-client-secret',
    QUARRY_SSO_NAME: 'Upstream IdP',
  });
  // A user who belongs to no org yet.
  await (gateway.database.admin as Kysely<IdentityDatabase>)
    .insertInto('identity.users')
    .values({ email: 'orgless@acme.test', name: 'Orgless' })
    .execute();
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** An MCP client's first connection: refused, leaving the authorization URL to open. */
async function beginAuthorization() {
  const { provider, state } = memoryProvider('SSO test client', REDIRECT);
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: provider });
  await expect(new Client({ name: 'sso-test', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  return { provider, state, transport, authorizationUrl: state.authorizationUrl!.toString() };
}

/** Opens the sign-in page and takes its "Sign in with" link to the upstream and back to Quarry. */
async function signInThroughUpstream(browser: ReturnType<typeof createBrowser>, authorizationUrl: string) {
  const login = await browser.follow(authorizationUrl, REDIRECT);
  expect(login.page?.html).toContain('Sign in with Upstream IdP');
  const href = /<a href="([^"]+)">Sign in with/.exec(login.page!.html)![1]!;
  return browser.follow(new URL(href, gateway.base).toString(), `${gateway.base}/oauth/sso/callback`);
}

const ssoRefusals = (email: string) =>
  (gateway.database.admin as Kysely<IdentityDatabase>)
    .selectFrom('identity.auth_events')
    .select(['event', 'email', 'detail'])
    .where('event', '=', 'sso_refused')
    .where('email', '=', email)
    .execute();

describe('single sign-on through an upstream OpenID Connect provider', () => {
  it('signs a Quarry user in by verified email, consents, and calls tools as that user', async () => {
    const { provider, state, transport, authorizationUrl } = await beginAuthorization();
    upstream.signInAs('ada');
    const browser = createBrowser();
    const atCallback = await signInThroughUpstream(browser, authorizationUrl);
    expect(atCallback.url).toContain('state=');
    const consent = await browser.follow(atCallback.url, REDIRECT);
    expect(consent.page?.html).toContain('Signed in as ada@acme.test');
    expect(consent.url).toContain('/oauth/interaction/');
    const decided = await browser.request(`${consent.url}/consent`, {
      form: {
        csrf: browser.field(consent.page!.html, 'csrf') ?? '',
        org: browser.field(consent.page!.html, 'org') ?? '',
        decision: 'allow',
      },
    });
    const done = await browser.follow(decided.location!, REDIRECT);
    await transport.finishAuth(new URL(done.url).searchParams);
    expect(state.tokens?.access_token).toMatch(/^ey/);

    const client = new Client({ name: 'sso-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: provider }));
    const ping = await client.callTool({ name: 'ping', arguments: {} });
    expect(ping.structuredContent).toMatchObject({ orgSlug: 'acme', userEmail: 'ada@acme.test' });
    await client.close();

    const signIns = await (gateway.database.admin as Kysely<IdentityDatabase>)
      .selectFrom('identity.auth_events')
      .select(['detail'])
      .where('event', '=', 'sign_in')
      .where('email', '=', 'ada@acme.test')
      .execute();
    expect(signIns.map((s) => s.detail)).toContainEqual({ method: 'sso', issuer: upstream.issuer });

    // The callback replayed: its one-time cookie is gone, so it is refused.
    const replay = await browser.request(atCallback.url);
    expect(replay.status).toBe(400);
    expect(replay.html).toContain('no longer valid');
  }, 60_000);

  it('refuses an upstream account whose email is no Quarry user, with a clear page, and audits it', async () => {
    const { authorizationUrl } = await beginAuthorization();
    upstream.signInAs('stranger');
    const browser = createBrowser();
    const atCallback = await signInThroughUpstream(browser, authorizationUrl);
    const refused = await browser.request(atCallback.url);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('No Quarry account');
    expect(refused.html).toContain('stranger@elsewhere.test is not a member');
    expect(await ssoRefusals('stranger@elsewhere.test')).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ reason: 'unknown email' }) }),
    ]);
  }, 60_000);

  it('refuses a user who is a member of no organization', async () => {
    const { authorizationUrl } = await beginAuthorization();
    upstream.signInAs('orgless');
    const browser = createBrowser();
    const refused = await browser.request((await signInThroughUpstream(browser, authorizationUrl)).url);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('orgless@acme.test is not a member');
    expect(await ssoRefusals('orgless@acme.test')).toEqual([
      expect.objectContaining({ detail: expect.objectContaining({ reason: 'no organization' }) }),
    ]);
  }, 60_000);

  it('refuses an email the upstream provider has not verified', async () => {
    const { authorizationUrl } = await beginAuthorization();
    upstream.signInAs('unverified');
    const browser = createBrowser();
    const atCallback = await signInThroughUpstream(browser, authorizationUrl);
    const refused = await browser.request(atCallback.url);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('Email not verified');
    expect(await ssoRefusals('ada@acme.test')).toContainEqual(
      expect.objectContaining({ detail: expect.objectContaining({ reason: 'email not verified' }) }),
    );
  }, 60_000);

  it('refuses a callback whose state is not the one it sent', async () => {
    const { authorizationUrl } = await beginAuthorization();
    upstream.signInAs('ada');
    const browser = createBrowser();
    const atCallback = new URL((await signInThroughUpstream(browser, authorizationUrl)).url);
    const genuine = atCallback.searchParams.get('state')!;
    atCallback.searchParams.set('state', 'forged-state');
    const refused = await browser.request(atCallback.toString());
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Sign-in refused');
    // Nor does the genuine state work afterwards: the pending sign-in was spent.
    atCallback.searchParams.set('state', genuine);
    const again = await browser.request(atCallback.toString());
    expect(again.status).toBe(400);
    expect(again.html).toContain('no longer valid');
  }, 60_000);

  it('will not start with an issuer but no client credentials', () => {
    expect(() =>
      loadGatewayConfig({
        DATABASE_URL: 'postgres://x@127.0.0.1/x',
        QUARRY_IDENTITY_KEY: 'k'.repeat(48),
        QUARRY_SSO_ISSUER: 'https://idp.example.com',
        QUARRY_SSO_CLIENT_ID: 'quarry',
      }),
    ).toThrow(/QUARRY_SSO_CLIENT_SECRET/);
  });
});
