import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import { injectFetch } from './inject-client.js';
import { createBrowser, pkcePair } from './oauth-browser.js';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';

// The embedded authorization server's endpoints as a client calls them, answered by
// `app.inject()`: registration, the authorization URL, the token endpoint and one tool call.

export const PASSWORD = 'correct horse battery staple';

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;

/** The gateway alone on a free port (its issuer URL), with a password for ada@acme.test. */
export async function startOAuthGateway(runtimeOptions: Parameters<typeof startGatewayOnly>[1] = {}) {
  const port = await freePort();
  const gateway = await startGatewayOnly(
    { PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` },
    runtimeOptions,
  );
  await createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>).setPassword('ada@acme.test', PASSWORD);
  return gateway;
}

export function oauthRequests(gateway: Gateway) {
  const send = injectFetch(gateway.app) as (url: string, init: RequestInit) => Promise<Response>;

  const json = async (response: Response) => ({
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  });

  /** Dynamic Client Registration with exactly this body. */
  const register = async (metadata: Record<string, unknown>) =>
    json(
      await send(`${gateway.base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(metadata),
      }),
    );

  /** A client registered as public clients register, with these redirect URIs. */
  const registered = async (redirectUris: string[], extra: Record<string, unknown> = {}) => {
    const answer = await register({
      client_name: 'Test client',
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...extra,
    });
    if (answer.status !== 201) throw new Error(`registration refused: ${JSON.stringify(answer.body)}`);
    return answer.body.client_id as string;
  };

  /** An authorization URL with PKCE S256 and the MCP resource; `undefined` leaves a parameter out. */
  const authorizeUrl = (params: Record<string, string | undefined>, challenge = pkcePair().challenge) => {
    const url = new URL(`${gateway.base}/oauth/authorize`);
    const all = {
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: gateway.url,
      state: 'st',
      ...params,
    };
    for (const [key, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(key, value);
    return url.toString();
  };

  /** A token request with these form fields. */
  const token = async (fields: Record<string, string>) =>
    json(
      await send(`${gateway.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      }),
    );

  /** Signs ada in and consents; the callback URL the client's redirect URI received. */
  const signIn = (url: string, redirectUri: string) =>
    createBrowser(send).authorize(url, { email: 'ada@acme.test', password: PASSWORD, redirectUri });

  /** A code for `clientId` at `redirectUri`, with its verifier. */
  const codeFor = async (clientId: string, redirectUri: string, params: Record<string, string | undefined> = {}) => {
    const pkce = pkcePair();
    const callback = await signIn(
      authorizeUrl({ client_id: clientId, redirect_uri: redirectUri, scope: 'quarry:read', ...params }, pkce.challenge),
      redirectUri,
    );
    return { code: callback.searchParams.get('code') ?? '', verifier: pkce.verifier, callback };
  };

  /** The `ping` tool with this bearer: its HTTP status and structured answer. */
  const ping = async (accessToken: string) => {
    const response = await send(gateway.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {} } }),
    });
    return { status: response.status, text: await response.text() };
  };

  return { send, register, registered, authorizeUrl, token, signIn, codeFor, ping, browser: () => createBrowser(send) };
}
