import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createHttpEmbedder, embeddingsEndpoint } from '../src/index.js';

/** A local OpenAI-compatible /v1/embeddings server whose failures the test scripts. */
let server: Server;
let baseUrl: string;
let requests: { auth: string | undefined; model: string; input: string[] }[];
let failures: number[]; // statuses to answer before succeeding
let dimension: number;

const vectorOf = (text: string): number[] => Array.from({ length: dimension }, (_, i) => text.length + i);

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      if (req.url !== '/v1/embeddings' || req.method !== 'POST') return res.writeHead(404).end();
      const body = JSON.parse(raw) as { model: string; input: string[] };
      requests.push({ auth: req.headers.authorization, model: body.model, input: body.input });
      const status = failures.shift();
      if (status !== undefined)
        return res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: `scripted ${status}` } }));
      // Real servers may return the items out of order; `index` says where each belongs.
      const data = body.input
        .map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) }))
        .reverse();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  requests = [];
  failures = [];
  dimension = 3;
});

const fast = { minBackoffMs: 5, maxBackoffMs: 20 };

describe('http embedder (OpenAI-compatible)', () => {
  it('resolves the endpoint from a server root, a /v1 base or the full URL', () => {
    expect(embeddingsEndpoint('http://h:11434')).toBe('http://h:11434/v1/embeddings');
    expect(embeddingsEndpoint('https://api.openai.com/v1/')).toBe('https://api.openai.com/v1/embeddings');
    expect(embeddingsEndpoint('http://h/v1/embeddings')).toBe('http://h/v1/embeddings');
  });

  it('sends batches of batchSize with model and bearer key, and keeps input order', async () => {
    const e = createHttpEmbedder({
      url: baseUrl,
      model: 'nomic-embed-text',
      apiKey: 'sk-test',
      dimension: 3,
      batchSize: 2,
      ...fast,
    });
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vectors = await e.embed(texts);
    expect(vectors).toEqual(texts.map(vectorOf));
    expect(requests.map((r) => r.input)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    expect(requests.every((r) => r.model === 'nomic-embed-text' && r.auth === 'Bearer sk-test')).toBe(true);
    expect(await e.identity()).toEqual({ id: 'http:nomic-embed-text', dimension: 3 });
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    failures = [429, 503, 500];
    const e = createHttpEmbedder({ url: baseUrl, model: 'm', dimension: 3, retries: 4, ...fast });
    expect(await e.embed(['x'])).toEqual([vectorOf('x')]);
    expect(requests).toHaveLength(4);
  });

  it('gives up after the configured retries', async () => {
    failures = [503, 503, 503];
    const e = createHttpEmbedder({ url: baseUrl, model: 'm', dimension: 3, retries: 2, ...fast });
    await expect(e.embed(['x'])).rejects.toThrow('answered 503');
    expect(requests).toHaveLength(3);
  });

  it('does not retry other 4xx errors', async () => {
    failures = [401];
    const e = createHttpEmbedder({ url: baseUrl, model: 'm', dimension: 3, retries: 4, ...fast });
    await expect(e.embed(['x'])).rejects.toThrow('answered 401');
    expect(requests).toHaveLength(1);
  });

  it('learns the dimension from one probe when not configured, and rejects vectors of another size', async () => {
    dimension = 5;
    const e = createHttpEmbedder({ url: baseUrl, model: 'm', ...fast });
    expect(await e.identity()).toEqual({ id: 'http:m', dimension: 5 });
    expect(requests.map((r) => r.input)).toEqual([['dimension probe']]);
    dimension = 6;
    await expect(e.embed(['x'])).rejects.toThrow('dimension 6, expected 5');
  });
});
