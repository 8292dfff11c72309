import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { injectPost, LEGACY_INIT } from './mcp-requests.js';
import { ADA_TOKEN, bearer, buildStubServer, stubAuthenticator } from './stub-deps.js';

// The DNS-rebinding guards on /mcp (@modelcontextprotocol/fastify's hooks, inject() over stub
// deps): the Host header must name an allowed host (`*` allows any), and an Origin, which only a
// browser sends, must name an allowed one. A refusal is a 403 with a JSON-RPC error, given before
// the token is even looked at.

const authenticator = stubAuthenticator();
let loopback: FastifyInstance;
let anyHost: FastifyInstance;

beforeAll(async () => {
  ({ app: loopback } = await buildStubServer({ authenticator }));
  ({ app: anyHost } = await buildStubServer({
    authenticator,
    http: { allowedHosts: ['*'], allowedOrigins: ['app.example.com'] },
  }));
});
afterAll(async () => {
  await loopback?.close();
  await anyHost?.close();
});

const post = (app: FastifyInstance, headers: Record<string, string>) =>
  injectPost(app, LEGACY_INIT, { ...bearer(ADA_TOKEN), ...headers });

const refused = (answer: Awaited<ReturnType<typeof injectPost>>, message: string) => {
  expect(answer.status).toBe(403);
  expect(answer.headers['content-type']).toMatch(/application\/json/);
  expect(answer.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });
};

describe('the Host header', () => {
  it.each(['localhost', 'localhost:8080', '127.0.0.1:3000', '[::1]:8080'])(
    'accepts an allowed host (%s)',
    async (host) => {
      expect((await post(loopback, { host })).status).toBe(200);
    },
  );

  it('refuses any other host with 403 and a JSON-RPC error, before looking at the token', async () => {
    authenticator.seen.length = 0;
    refused(await post(loopback, { host: 'evil.example' }), 'Invalid Host: evil.example');
    refused(await post(loopback, { host: 'evil.example:80' }), 'Invalid Host: evil.example');
    expect(authenticator.seen).toEqual([]);
  });

  it('accepts any host when the allow-list is `*`', async () => {
    expect((await post(anyHost, { host: 'quarry.internal.example:8080' })).status).toBe(200);
    expect((await post(anyHost, { host: 'evil.example' })).status).toBe(200);
  });

  it('guards /mcp only: health probes come by pod address', async () => {
    const response = await loopback.inject({ method: 'GET', url: '/healthz', headers: { host: '10.1.2.3:8080' } });
    expect(response.statusCode).toBe(200);
  });
});

describe('the Origin header', () => {
  it('lets a request without Origin through (MCP clients that are not browsers send none)', async () => {
    expect((await post(loopback, {})).status).toBe(200);
    expect((await post(anyHost, {})).status).toBe(200);
  });

  it('accepts an allowed origin, whatever its port', async () => {
    expect((await post(loopback, { origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await post(anyHost, { origin: 'https://app.example.com' })).status).toBe(200);
  });

  it('refuses a foreign origin with 403 (DNS rebinding, cross-site requests)', async () => {
    authenticator.seen.length = 0;
    refused(await post(loopback, { origin: 'https://evil.example' }), 'Invalid Origin: evil.example');
    refused(await post(anyHost, { origin: 'http://localhost:5173' }), 'Invalid Origin: localhost');
    expect(authenticator.seen).toEqual([]);
  });

  it('refuses an origin it cannot read', async () => {
    refused(await post(loopback, { origin: 'not a url' }), 'Invalid Origin header: not a url');
  });
});
