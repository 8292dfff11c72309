import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pkcePair } from './oauth-browser.js';
import { oauthRequests, startOAuthGateway } from './oauth-requests.js';

// A refused token request says which check failed in its error_description, so that a client's
// developer can tell a PKCE mismatch from a used code, a wrong redirect_uri, another client's
// code or another resource — not only "grant request is invalid".

let gateway: Awaited<ReturnType<typeof startOAuthGateway>>;
let oauth: ReturnType<typeof oauthRequests>;
const REDIRECT = 'http://127.0.0.1:8123/callback';

beforeAll(async () => {
  gateway = await startOAuthGateway();
  oauth = oauthRequests(gateway);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

/** A fresh code, and the token request that would redeem it, to be spoiled one field at a time. */
async function redeemable() {
  const clientId = await oauth.registered([REDIRECT]);
  const { code, verifier } = await oauth.codeFor(clientId, REDIRECT);
  const fields: Record<string, string> = {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: clientId,
    resource: gateway.url,
  };
  return { clientId, fields };
}

async function refused(fields: Record<string, string>) {
  const answer = await oauth.token(fields);
  expect(answer.status).toBeGreaterThanOrEqual(400);
  return answer.body as { error: string; error_description: string };
}

describe('the token endpoint says which check failed', () => {
  it('a missing PKCE verifier', async () => {
    const { fields } = await redeemable();
    const { code_verifier: _omitted, ...rest } = fields;
    expect(await refused(rest)).toEqual({
      error: 'invalid_grant',
      error_description:
        'code_verifier is missing: send the PKCE verifier whose S256 hash was the code_challenge of the authorization request',
    });
  });

  it('a PKCE verifier that does not match', async () => {
    const { fields } = await redeemable();
    expect(await refused({ ...fields, code_verifier: pkcePair().verifier })).toEqual({
      error: 'invalid_grant',
      error_description:
        'PKCE verification failed: the code_verifier does not match the code_challenge sent with the authorization request',
    });
  });

  it('a code used twice', async () => {
    const { fields } = await redeemable();
    expect((await oauth.token(fields)).status).toBe(200);
    expect(await refused(fields)).toEqual({
      error: 'invalid_grant',
      error_description:
        'the authorization code was already used; the tokens issued for it are revoked: authorize again',
    });
  });

  it('a code that is unknown or expired', async () => {
    const { fields } = await redeemable();
    expect(await refused({ ...fields, code: 'not-a-code-this-server-issued' })).toEqual({
      error: 'invalid_grant',
      error_description:
        'the authorization code is unknown, already used or expired (codes last 60 seconds and work once): authorize again',
    });
  });

  it('another redirect_uri than the authorization request’s', async () => {
    const { fields } = await redeemable();
    expect(await refused({ ...fields, redirect_uri: 'http://127.0.0.1:8123/other' })).toEqual({
      error: 'invalid_grant',
      error_description:
        'redirect_uri differs from the one sent with the authorization request: send exactly that redirect_uri',
    });
  });

  it('a code issued to another client', async () => {
    const { fields } = await redeemable();
    const other = await oauth.registered([REDIRECT]);
    expect(await refused({ ...fields, client_id: other })).toEqual({
      error: 'invalid_grant',
      error_description:
        'the code or refresh token was issued to another client: send the client_id (and credentials) of the client that started the authorization',
    });
  });

  it('another resource than this MCP endpoint', async () => {
    const { fields } = await redeemable();
    const answer = await refused({ ...fields, resource: 'https://other.example/mcp' });
    expect(answer.error).toBe('invalid_target');
    expect(answer.error_description).toBe(
      `resource "https://other.example/mcp" is not this server's: it issues tokens only for ${gateway.url}; send that resource, or none`,
    );
  });

  it('a refresh token used twice', async () => {
    const { fields } = await redeemable();
    const first = await oauth.token({ ...fields, scope: 'quarry:read' });
    const refresh = {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      client_id: fields.client_id!,
    };
    expect((await oauth.token(refresh)).status).toBe(200);
    expect(await refused(refresh)).toEqual({
      error: 'invalid_grant',
      error_description:
        'the refresh token was already used (each works once, and its replacement came with the previous answer); the authorization is revoked: authorize again',
    });
  });
});
