import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import { importJWK, type JWK, SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import { createBrowser, pkcePair } from './oauth-browser.js';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';

// Each way an OAuth client can get it wrong is refused with the error that says so, and nothing
// on the authorization server redirects anywhere a registered client did not name.

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
let gateway: Gateway;
let db: Kysely<IdentityDatabase>;
const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  const port = await freePort();
  gateway = await startGatewayOnly({ PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` });
  db = gateway.database.admin as Kysely<IdentityDatabase>;
  const oauth = createOAuthAdmin(db);
  await oauth.setPassword('ada@acme.test', PASSWORD);
  await gateway.admin.createOrg({ slug: 'globex', name: 'Globex' });
  await gateway.admin.addUser({ email: 'hank@globex.test', orgSlug: 'globex', name: 'Hank' });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

const form = (url: string, body: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body),
    redirect: 'manual',
  });

async function register(redirectUris = [REDIRECT]) {
  const response = await fetch(`${gateway.base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Refusals', redirect_uris: redirectUris, token_endpoint_auth_method: 'none' }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  const url = new URL(`${gateway.base}/oauth/authorize`);
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'quarry:read quarry:write offline_access',
    resource: gateway.url,
    state: 'st',
    ...extra,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

/** A code issued to `clientId`, with the verifier it was bound to. */
async function codeFor(clientId: string, extra: Record<string, string> = {}) {
  const pkce = pkcePair();
  const callback = await createBrowser().authorize(authorizeUrl(clientId, pkce.challenge, extra), {
    email: 'ada@acme.test',
    password: PASSWORD,
    redirectUri: REDIRECT,
  });
  return { code: callback.searchParams.get('code')!, verifier: pkce.verifier, callback };
}

const exchange = (clientId: string, code: string, verifier?: string) =>
  form(`${gateway.base}/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    resource: gateway.url,
    ...(verifier === undefined ? {} : { code_verifier: verifier }),
  });

const callTool = (token: string, name: string, args: Record<string, unknown> = {}) =>
  fetch(gateway.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name, arguments: args },
    }),
  });

describe('the authorization endpoint', () => {
  it('refuses a request without PKCE, or with plain PKCE', async () => {
    const clientId = await register();
    for (const extra of [
      { code_challenge: '', code_challenge_method: '' },
      { code_challenge_method: 'plain' },
    ] as Array<Record<string, string>>) {
      const pkce = pkcePair();
      const answer = await createBrowser().request(authorizeUrl(clientId, pkce.challenge, extra));
      // The error goes back to the registered redirect URI, and only there.
      expect(answer.location).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?error=invalid_request/);
    }
  });

  it('never redirects to a URI the client did not register', async () => {
    const clientId = await register();
    const answer = await createBrowser().request(
      authorizeUrl(clientId, pkcePair().challenge, { redirect_uri: 'https://evil.example/steal' }),
    );
    expect(answer.status).toBe(400);
    expect(answer.location).toBeUndefined();
    expect(answer.html).toMatch(/redirect_uri did not match/);
  });

  it('issues tokens for this MCP endpoint only', async () => {
    const clientId = await register();
    const answer = await createBrowser().request(
      authorizeUrl(clientId, pkcePair().challenge, { resource: 'https://other.example/mcp' }),
    );
    expect(answer.location).toMatch(/error=invalid_target/);
  });

  it('returns iss with the code (RFC 9207)', async () => {
    const { callback } = await codeFor(await register());
    expect(callback.searchParams.get('iss')).toBe(gateway.base);
    expect(callback.searchParams.get('state')).toBe('st');
  });
});

describe('the token endpoint', () => {
  it('refuses a missing or wrong PKCE verifier', async () => {
    const clientId = await register();
    const { code } = await codeFor(clientId);
    const missing = await exchange(clientId, code);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'invalid_grant' });
    const { code: other } = await codeFor(clientId);
    const wrong = await exchange(clientId, other, pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a code used twice, and revokes what the first use issued', async () => {
    const clientId = await register();
    const { code, verifier } = await codeFor(clientId);
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    const { access_token } = (await first.json()) as { access_token: string };
    const replay = await exchange(clientId, code, verifier);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await callTool(access_token, 'ping')).status).toBe(401);
  });

  it("refuses another client's code", async () => {
    const { code, verifier } = await codeFor(await register());
    const answer = await exchange(await register(), code, verifier);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('the MCP endpoint', () => {
  async function signingKey() {
    const row = await db
      .selectFrom('identity.oauth_signing_keys')
      .select('private_jwk')
      .where('retired_at', 'is', null)
      .executeTakeFirstOrThrow();
    const jwk = row.private_jwk as JWK;
    return { key: await importJWK(jwk, 'ES256'), kid: jwk.kid! };
  }
  async function validClaims() {
    const clientId = await register();
    const { code, verifier } = await codeFor(clientId);
    const { access_token } = (await (await exchange(clientId, code, verifier)).json()) as { access_token: string };
    const [, payload] = access_token.split('.');
    return { token: access_token, claims: JSON.parse(Buffer.from(payload!, 'base64url').toString()) };
  }
  async function forge(claims: Record<string, unknown>) {
    const { key, kid } = await signingKey();
    return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' }).sign(key);
  }
  const refusal = async (response: Response) => ({
    status: response.status,
    challenge: response.headers.get('www-authenticate'),
    message: ((await response.json()) as { error: { message: string } }).error.message,
  });

  it('accepts the access token it was issued, with the scopes consented', async () => {
    const { token, claims } = await validClaims();
    expect(claims).toMatchObject({ aud: gateway.url, iss: gateway.base, scope: 'quarry:read quarry:write' });
    const answer = await callTool(token, 'ping');
    expect(answer.status).toBe(200);
  });

  it('answers 401 with the resource metadata URL, which names the authorization server', async () => {
    const answer = await fetch(gateway.url, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(401);
    const metadataUrl = `${gateway.base}/.well-known/oauth-protected-resource/mcp`;
    expect(answer.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
    const metadata = await (await fetch(metadataUrl)).json();
    expect(metadata).toMatchObject({ resource: gateway.url, authorization_servers: [gateway.base] });
    const as = (await (await fetch(`${gateway.base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as).toMatchObject({
      issuer: gateway.base,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      registration_endpoint: `${gateway.base}/oauth/register`,
    });
  });

  it('serves every endpoint its metadata advertises (a client may use any of them)', async () => {
    const as = (await (await fetch(`${gateway.base}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    const endpoints = Object.entries(as).filter(([key]) => key.endsWith('_endpoint') || key === 'jwks_uri');
    expect(endpoints.map(([key]) => key)).toEqual(
      expect.arrayContaining(['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'jwks_uri']),
    );
    for (const [key, url] of endpoints) {
      expect(`${key} ${String(url)}`).toMatch(new RegExp(`^${key} ${gateway.base}/oauth/`));
      // Read endpoints answer GET (logout too: POST is oidc-provider's opt-in); the others POST.
      const method = ['authorization_endpoint', 'jwks_uri', 'end_session_endpoint'].includes(key) ? 'GET' : 'POST';
      const answer = await fetch(
        String(url),
        method === 'GET'
          ? { redirect: 'manual' }
          : { method, redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' },
      );
      expect(`${key} ${answer.status}`).not.toBe(`${key} 404`);
    }
  });

  it('takes a pushed authorization request and signs in through its request_uri', async () => {
    const clientId = await register();
    const pkce = pkcePair();
    const params = Object.fromEntries(new URL(authorizeUrl(clientId, pkce.challenge)).searchParams);
    const pushed = await form(`${gateway.base}/oauth/par`, params);
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri } = (await pushed.json()) as { request_uri: string };
    const url = new URL(`${gateway.base}/oauth/authorize`);
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('request_uri', requestUri);
    const callback = await createBrowser().authorize(url.toString(), {
      email: 'ada@acme.test',
      password: PASSWORD,
      redirectUri: REDIRECT,
    });
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('state')).toBe('st');
  });

  it('refuses a token for another audience, an expired one, and one of a foreign org', async () => {
    const { claims } = await validClaims();
    const now = Math.floor(Date.now() / 1000);
    const audience = await refusal(
      await callTool(await forge({ ...claims, aud: 'https://other.example/mcp' }), 'ping'),
    );
    expect(audience).toMatchObject({ status: 401, message: expect.stringMatching(/another resource/) });
    const expired = await refusal(await callTool(await forge({ ...claims, iat: now - 7200, exp: now - 3600 }), 'ping'));
    expect(expired).toMatchObject({ status: 401, message: expect.stringMatching(/expired/) });
    const globex = await gateway.admin.findOrg('globex');
    const foreign = await refusal(await callTool(await forge({ ...claims, quarry_org: globex!.id }), 'ping'));
    expect(foreign).toMatchObject({ status: 401, message: expect.stringMatching(/not valid/) });
    const unsigned = `${(await forge(claims)).split('.').slice(0, 2).join('.')}.${'A'.repeat(86)}`;
    expect((await refusal(await callTool(unsigned, 'ping'))).status).toBe(401);
  });

  it('refuses the tokens of a grant an operator revoked, from the next request on', async () => {
    const { token, claims } = await validClaims();
    expect((await callTool(token, 'ping')).status).toBe(200);
    const oauth = createOAuthAdmin(db);
    const grant = (await oauth.listGrants({ orgSlug: 'acme' })).find((g) => g.client === claims.client_id)!;
    await oauth.revokeGrant(grant.id);
    const answer = await refusal(await callTool(token, 'ping'));
    expect(answer).toMatchObject({ status: 401, message: expect.stringMatching(/revoked/) });
  });

  it('answers 403 insufficient_scope naming the scope a write tool needs', async () => {
    const clientId = await register();
    const { code, verifier } = await codeFor(clientId, { scope: 'quarry:read' });
    const { access_token } = (await (await exchange(clientId, code, verifier)).json()) as { access_token: string };
    expect((await callTool(access_token, 'ping')).status).toBe(200);
    const answer = await refusal(await callTool(access_token, 'create_research_plan', { title: 'x', goal: 'y' }));
    expect(answer.status).toBe(403);
    expect(answer.challenge).toMatch(/error="insufficient_scope", scope="quarry:write"/);
    expect(answer.message).toMatch(/quarry:write/);
  });
});
