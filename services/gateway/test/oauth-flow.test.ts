import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import type { Kysely } from 'kysely';
import { createBrowser } from './oauth-browser.js';
import { memoryProvider } from './oauth-memory-provider.js';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';

// The whole OAuth flow of a remote MCP client with the official client SDK, headless: 401 →
// protected-resource metadata → authorization-server metadata → dynamic registration →
// authorize (sign-in and consent pages) → token → tools/call → refresh → revoke → refused.

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
let gateway: Gateway;
const PASSWORD = 'correct horse battery staple';
const REDIRECT = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  const port = await freePort();
  gateway = await startGatewayOnly({ PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` });
  await createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>).setPassword('ada@acme.test', PASSWORD);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

const connect = async (provider: OAuthClientProvider) => {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: provider });
  await client.connect(transport);
  return { client, transport };
};

describe('a remote MCP client given only the URL', () => {
  it('signs in, consents, calls tools, refreshes, and is refused once its grant is revoked', async () => {
    const { provider, state } = memoryProvider('Quarry test client', REDIRECT);
    const first = new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: provider });
    await expect(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(state.client?.client_id).toBeTruthy();
    const authorizationUrl = state.authorizationUrl!;
    expect(authorizationUrl.pathname).toBe('/oauth/authorize');
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(gateway.url);

    const browser = createBrowser();
    const callback = await browser.authorize(authorizationUrl.toString(), {
      email: 'ada@acme.test',
      password: PASSWORD,
      redirectUri: REDIRECT,
    });
    expect(callback.searchParams.get('iss')).toBe(gateway.base);
    await first.finishAuth(callback.searchParams);
    expect(state.tokens?.access_token).toMatch(/^ey/);
    expect(state.tokens?.refresh_token).toBeTruthy();

    const { client } = await connect(provider);
    const ping = await client.callTool({ name: 'ping', arguments: {} });
    expect(ping.isError).toBeFalsy();
    expect(ping.structuredContent).toMatchObject({ orgSlug: 'acme', userEmail: 'ada@acme.test' });
    await client.close();

    // Refresh: a new pair; the old refresh token is rotated away.
    const clientId = state.client!.client_id;
    const oldRefresh = state.tokens!.refresh_token!;
    const refresh = (token: string) =>
      fetch(`${gateway.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: clientId }),
      });
    const refreshed = await refresh(oldRefresh);
    expect(refreshed.status).toBe(200);
    const pair = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(pair.refresh_token).not.toBe(oldRefresh);
    const call = (token: string) =>
      fetch(gateway.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await call(pair.access_token)).status).not.toBe(401);

    // Revoking the refresh token ends the grant: its access tokens are refused from the next request.
    const revoked = await fetch(`${gateway.base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: pair.refresh_token, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const refused = await call(pair.access_token);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/revoked/);
    expect((await refresh(pair.refresh_token)).status).toBe(400);
  }, 60_000);

  it('is limited to the tools an operator names for its grant, from the next request on', async () => {
    const { provider, state } = memoryProvider('Quarry test client', REDIRECT);
    const first = new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider: provider });
    await expect(new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const callback = await createBrowser().authorize(state.authorizationUrl!.toString(), {
      email: 'ada@acme.test',
      password: PASSWORD,
      redirectUri: REDIRECT,
    });
    await first.finishAuth(callback.searchParams);
    const { client } = await connect(provider);
    expect((await client.listTools()).tools.length).toBeGreaterThan(2);

    const admin = createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>);
    const grant = (await admin.listGrants()).find((g) => g.revokedAt === null)!;
    expect(grant.tools).toBeNull();
    await expect(admin.setGrantTools(grant.id, ['ping', 'no_such_tool'])).rejects.toThrow(
      /Unknown tool "no_such_tool"/,
    );
    await admin.setGrantTools(grant.id, ['ping', 'list_plans']);
    // The same access token, already cached: the change reaches it on its next request.
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['list_plans', 'ping']);
    expect((await client.callTool({ name: 'ping', arguments: {} })).isError).toBeFalsy();
    await expect(client.callTool({ name: 'get_plan_status', arguments: { planId: 'x' } })).rejects.toThrow(
      /Unknown tool: get_plan_status/,
    );
    await admin.setGrantTools(grant.id, null);
    expect((await client.listTools()).tools.length).toBeGreaterThan(2);
    await client.close();
  }, 60_000);
});
