import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { freePort } from './free-port.js';
import { startGatewayOnly } from './gateway-only.js';

// An external issuer that cannot be reached says nothing about a token: the gateway answers 503
// with Retry-After (retry, your token may be good), never 401 or 500, and recovers by itself once
// the issuer answers again, with no restart.

type Gateway = Awaited<ReturnType<typeof startGatewayOnly>>;
let gateway: Gateway;
let issuerServer: Server | undefined;
let port = 0;
let issuer = '';
let keysAnswer = 200;
let token = '';
let handler: Parameters<typeof createServer>[1];

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'ext-1', alg: 'ES256', use: 'sig' };
  port = await freePort();
  issuer = `http://127.0.0.1:${port}`;
  handler = (request, response) => {
    response.setHeader('content-type', 'application/json');
    if (request.url === '/.well-known/openid-configuration')
      return response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/keys` }));
    if (request.url === '/keys') {
      response.statusCode = keysAnswer;
      return response.end(keysAnswer === 200 ? JSON.stringify({ keys: [jwk] }) : '{}');
    }
    response.statusCode = 404;
    response.end('{}');
  };
  // The issuer is down from the start: nothing listens on its port yet.
  gateway = await startGatewayOnly({ QUARRY_OAUTH_ISSUER: issuer, QUARRY_OAUTH_AUDIENCE: 'quarry-api' });
  token = await new SignJWT({ sub: 'ext-user-1', email: 'ada@acme.test', quarry_org: 'acme', scope: 'quarry:read' })
    .setProtectedHeader({ alg: 'ES256', kid: 'ext-1' })
    .setIssuer(issuer)
    .setAudience('quarry-api')
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(privateKey);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  if (issuerServer) await new Promise((resolve) => issuerServer!.close(resolve));
});

const ping = () =>
  fetch(gateway.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {} } }),
  });

async function expectUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(response.headers.get('www-authenticate')).toBeNull();
  const body = (await response.json()) as { error: { message: string; data: { code: string } } };
  expect(body.error.data.code).toBe('UNAVAILABLE');
  expect(body.error.message).toMatch(/cannot reach the authorization server/);
}

describe('an external issuer that cannot be reached', () => {
  it('gets 503 with Retry-After while its discovery document is down', async () => {
    await expectUnavailable(await ping());
  });

  it('gets 503 with Retry-After while its discovery answers but its JWKS does not', async () => {
    issuerServer = createServer(handler);
    await new Promise<void>((resolve) => issuerServer!.listen(port, '127.0.0.1', resolve));
    keysAnswer = 502;
    await expectUnavailable(await ping());
  });

  it('is used again once it answers, without a restart', async () => {
    keysAnswer = 200;
    const response = await ping();
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"userEmail":"ada@acme.test"');
  });

  it('refuses a forged token with 401 as before, once its keys are known', async () => {
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.AAAA`;
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${forged}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(response.status).toBe(401);
  });
});
