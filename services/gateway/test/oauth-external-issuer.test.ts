import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startGatewayOnly } from './gateway-only.js';

// With QUARRY_OAUTH_ISSUER, Quarry is only the resource server: it accepts the external issuer's
// access tokens (keys found through its discovery document), maps the email and org claims to a
// member, and runs no authorization server of its own.

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
let gateway: Gateway;
let issuerServer: Server;
let issuer = '';
let sign: (claims: Record<string, unknown>, audience?: string) => Promise<string>;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'ext-1', alg: 'RS256', use: 'sig' };
  issuerServer = createServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    if (request.url === '/.well-known/openid-configuration')
      return response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    if (request.url === '/keys') return response.end(JSON.stringify({ keys: [jwk] }));
    response.statusCode = 404;
    response.end('{}');
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as { port: number }).port}`;
  gateway = await startGatewayOnly({ QUARRY_OAUTH_ISSUER: issuer, QUARRY_OAUTH_AUDIENCE: 'quarry-api' });
  await gateway.admin.createOrg({ slug: 'globex', name: 'Globex' });
  sign = (claims, audience = 'quarry-api') =>
    new SignJWT({ sub: 'ext-user-1', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'ext-1' })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await new Promise((resolve) => issuerServer?.close(resolve));
});

const callTool = (token: string, name: string, args: Record<string, unknown> = {}) =>
  fetch(gateway.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });

describe('an external authorization server', () => {
  it('is the one the protected-resource metadata names; Quarry serves no authorization endpoints', async () => {
    const metadata = await (await fetch(`${gateway.base}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(metadata).toMatchObject({ authorization_servers: [issuer] });
    expect((await fetch(`${gateway.base}/oauth/authorize`)).status).toBe(404);
    expect((await fetch(`${gateway.base}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });

  it("accepts its tokens for a member, with the token's scopes", async () => {
    const token = await sign({ email: 'Ada@acme.test', quarry_org: 'acme', scope: 'openid quarry:read' });
    const ping = await callTool(token, 'ping');
    expect(ping.status).toBe(200);
    expect(await ping.text()).toContain('"userEmail":"ada@acme.test"');
    const write = await callTool(token, 'create_research_plan', { title: 't', goal: 'g' });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toMatch(/scope="quarry:write"/);
  });

  it('refuses another audience, a non-member, an org the user is not in, and a missing org claim', async () => {
    const refused = async (token: string) => (await callTool(token, 'ping')).status;
    expect(await refused(await sign({ email: 'ada@acme.test', quarry_org: 'acme' }, 'someone-else'))).toBe(401);
    expect(await refused(await sign({ email: 'eve@acme.test', quarry_org: 'acme' }))).toBe(401);
    expect(await refused(await sign({ email: 'ada@acme.test', quarry_org: 'globex' }))).toBe(401);
    expect(await refused(await sign({ email: 'ada@acme.test' }))).toBe(401);
  });
});
