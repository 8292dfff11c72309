import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { injectPost, LEGACY_INIT } from './mcp-requests.js';
import { ADA_TOKEN, bearer, buildStubServer } from './stub-deps.js';

// What operators and load balancers see (inject() over stub deps): liveness, readiness made of
// named checks, the metrics exposition, request ids, and every response counted by route.

const checks = { database: true, revocations: true };
const responses: Array<[string, number]> = [];
let app: FastifyInstance;

beforeAll(async () => {
  ({ app } = await buildStubServer({
    readiness: {
      database: async () => checks.database,
      revocations: async () => {
        if (!checks.revocations) throw new Error('LISTEN connection lost');
        return true;
      },
    },
    metricsText: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: 'quarry_up 1\n' }),
    onHttpResponse: (route, status) => responses.push([route, status]),
  }));
});
afterAll(async () => {
  await app?.close();
});

describe('operations endpoints', () => {
  it('serves /healthz while the process runs', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
  });

  it('serves /readyz: 200 with every check when all pass', async () => {
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', checks: { database: true, revocations: true } });
  });

  it('answers /readyz 503 naming the check that fails, or throws', async () => {
    checks.database = false;
    checks.revocations = false;
    try {
      const response = await app.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toEqual({ status: 'not_ready', checks: { database: false, revocations: false } });
    } finally {
      checks.database = true;
      checks.revocations = true;
    }
  });

  it('serves /metrics in the exposition format it is given', async () => {
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.body).toBe('quarry_up 1\n');
  });
});

describe('every response', () => {
  it('echoes a request id, or assigns one when it is missing or unusable', async () => {
    const given = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'req-abc.123' } });
    expect(given.headers['x-request-id']).toBe('req-abc.123');
    const assigned = await app.inject({ method: 'GET', url: '/healthz' });
    expect(assigned.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unusable = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'a b\tc' } });
    expect(unusable.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('carries its request id on MCP answers and refusals too', async () => {
    const ok = await injectPost(app, LEGACY_INIT, { ...bearer(ADA_TOKEN), 'x-request-id': 'mcp-1' });
    const refused = await injectPost(app, LEGACY_INIT, { 'x-request-id': 'mcp-2' });
    expect([ok.status, ok.headers['x-request-id']]).toEqual([200, 'mcp-1']);
    expect([refused.status, refused.headers['x-request-id']]).toEqual([401, 'mcp-2']);
  });

  it('is counted by route and status, unknown routes as one', async () => {
    responses.length = 0;
    await app.inject({ method: 'GET', url: '/healthz' });
    await injectPost(app, LEGACY_INIT);
    await app.inject({ method: 'GET', url: '/nope/1' });
    await app.inject({ method: 'GET', url: '/nope/2' });
    expect(responses).toEqual([
      ['/healthz', 200],
      ['/mcp', 401],
      ['unmatched', 404],
      ['unmatched', 404],
    ]);
  });
});
