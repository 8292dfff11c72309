import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { FastifyInstance } from 'fastify';
import { injectPost, LEGACY_INIT, modernToolCall } from './mcp-requests.js';
import { ADA, ADA_TOKEN, bearer, buildStubServer, stubAuthenticator, type ServedBy } from './stub-deps.js';

// How the gateway answers what goes wrong at the HTTP level (fastify inject() against
// buildServer over stub dependencies): always a JSON-RPC error with a stable code, never HTML,
// and never a 5xx for a client's mistake. A database the gateway cannot reach is a 503 with
// Retry-After, not a 500 that reads like a bug.

const authenticator = stubAuthenticator();
let app: FastifyInstance;
let served: ServedBy;

beforeAll(async () => {
  ({ app, served } = await buildStubServer({ authenticator }));
});
afterAll(async () => {
  await app?.close();
});

const auth = () => bearer(ADA_TOKEN);
/** A 2026-07-28 ping (the fast path serves it). */
const ping = () => {
  const { headers, body } = modernToolCall('ping', {});
  return injectPost(app, JSON.stringify(body), { ...auth(), ...headers });
};
/** A 2025-era initialize (the SDK serves it). */
const initialize = () => injectPost(app, LEGACY_INIT, auth());

describe('HTTP-level failures are JSON-RPC errors, never HTML or 5xx', () => {
  it('refuses an oversized body with 413', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'ping', arguments: { pad: 'x'.repeat(5 * 1024 * 1024) } },
    });
    const { status, json } = await injectPost(app, big, auth());
    expect(status).toBe(413);
    expect(json.error?.data?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(json.error?.message).toBe('The request body is larger than the limit of 4194304 bytes.');
  });

  it('answers malformed JSON with 400 and a parse error (-32700), with no id to answer', async () => {
    const { status, headers, json } = await injectPost(app, '{"jsonrpc": "2.0", "id": 1, "method": ', auth());
    expect(status).toBe(400);
    expect(json.id).toBeNull();
    expect(headers['content-type']).toMatch(/application\/json/);
    expect(json.error?.code).toBe(-32700);
    expect(json.error?.data?.code).toBe('PARSE_ERROR');
  });

  it('answers an empty body with 400 and an invalid request (-32600)', async () => {
    const { status, json } = await injectPost(app, '', auth());
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ code: -32600, data: { code: 'INVALID_REQUEST' } });
    expect(json.error?.message).toMatch(/empty/);
  });

  it('answers a non-JSON content type with 415', async () => {
    const { status, json } = await injectPost(app, 'ping', { ...auth(), 'content-type': 'text/plain' });
    expect(status).toBe(415);
    expect(json.error?.data?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(json.error?.message).toMatch(/Content-Type: application\/json/);
  });

  it('answers an unknown JSON-RPC method with -32601', async () => {
    const { json } = await injectPost(
      app,
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'quarry/unknown', params: {} }),
      auth(),
    );
    expect(json.error?.code).toBe(-32601);
  });

  it('answers an unknown route with a JSON-RPC 404 that names the MCP endpoint', async () => {
    const response = await app.inject({ method: 'GET', url: '/nope?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/application\/json/);
    expect(response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32601,
        message: 'Not found: GET /nope. The MCP endpoint is POST /mcp.',
        data: { code: 'NOT_FOUND' },
      },
    });
  });

  it('serves the same request normally once it is well-formed, on either path', async () => {
    const before = { ...served };
    expect((await ping()).status).toBe(200);
    expect((await initialize()).status).toBe(200);
    expect(served).toEqual({ fast: before.fast + 1, sdk: before.sdk + 1 });
  });
});

describe('a database the gateway cannot reach', () => {
  const outages: Array<[string, Error]> = [
    ['refused connections', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    [
      'a server starting up',
      Object.assign(new Error('the database system is starting up'), { code: '57P03', severity: 'FATAL' }),
    ],
    ['a broken connection', new Error('Connection terminated unexpectedly')],
    [
      'too many connections',
      Object.assign(new Error('sorry, too many clients already'), { code: '53300', severity: 'FATAL' }),
    ],
  ];

  it.each(outages)('(%s) is a 503 with Retry-After on every path, then served again', async (_what, failure) => {
    expect((await ping()).status).toBe(200);
    authenticator.table.set(ADA_TOKEN, failure);
    try {
      for (const answer of [await ping(), await initialize()]) {
        expect(answer.status).toBe(503);
        // The body was read: the error answers the request by its id (1 in both).
        expect(answer.json.id).toBe(1);
        expect(answer.headers['retry-after']).toBe('2');
        expect(answer.json.error).toMatchObject({
          code: -32603,
          message: 'Quarry cannot reach its database right now; retry in a few seconds.',
          data: { code: 'UNAVAILABLE' },
        });
      }
    } finally {
      authenticator.table.set(ADA_TOKEN, ADA);
    }
    expect((await ping()).status).toBe(200);
    expect((await initialize()).status).toBe(200);
  });

  it('is told apart from a bug: any other failure is a 500 that leaks nothing', async () => {
    authenticator.table.set(ADA_TOKEN, new Error('relation "identity.secret_table" does not exist'));
    try {
      const answer = await ping();
      expect(answer.status).toBe(500);
      expect(answer.headers['retry-after']).toBeUndefined();
      expect(answer.json.error).toMatchObject({ code: -32603, message: 'Internal error.', data: { code: 'INTERNAL' } });
      expect(answer.text).not.toContain('secret_table');
    } finally {
      authenticator.table.set(ADA_TOKEN, ADA);
    }
  });
});
