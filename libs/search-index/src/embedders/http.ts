import pRetry, { AbortError } from 'p-retry';
import type { Embedder, EmbedderIdentity } from '../types.js';

/**
 * Any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, vLLM, TEI, LiteLLM…).
 * `url` may be the server root (`http://localhost:11434`), its `/v1` base or the full
 * `/v1/embeddings` URL. Inputs are sent in batches of `batchSize`; a 429, a 5xx or a network
 * error is retried with exponential backoff (`retries` times), any other 4xx fails at once.
 * When `dimension` is not configured it is learned from one probe request and then enforced on
 * every response, because a vector index must never receive vectors of another size.
 */
export interface HttpEmbedderOptions {
  url: string;
  model: string;
  apiKey?: string;
  dimension?: number;
  /** See Embedder.similarityFloor: where it goes depends on the model, so it is configured. */
  similarityFloor?: number;
  batchSize?: number;
  retries?: number;
  /** First backoff delay; doubles per attempt up to `maxBackoffMs`. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Per-request timeout. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export class EmbeddingHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'EmbeddingHttpError';
  }
}

export function embeddingsEndpoint(url: string): string {
  const base = url.replace(/\/+$/, '');
  if (base.endsWith('/embeddings')) return base;
  if (base.endsWith('/v1')) return `${base}/embeddings`;
  return `${base}/v1/embeddings`;
}

export function createHttpEmbedder(options: HttpEmbedderOptions): Embedder {
  const endpoint = embeddingsEndpoint(options.url);
  const batchSize = options.batchSize ?? 64;
  const doFetch = options.fetch ?? globalThis.fetch;
  const id = `http:${options.model}`;
  let dimension = options.dimension;

  const requestBatch = async (input: readonly string[]): Promise<number[][]> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const res = await doFetch(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: options.model, input }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
    if (!res.ok) {
      const detail = (await res.text().catch(() => '')).slice(0, 300);
      const err = new EmbeddingHttpError(
        res.status,
        `embeddings endpoint ${endpoint} answered ${res.status}: ${detail}`,
      );
      if (res.status === 429 || res.status >= 500) throw err;
      throw new AbortError(err);
    }
    const body = (await res.json()) as { data?: { index?: number; embedding?: unknown }[] };
    const data = body.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new AbortError(
        `embeddings endpoint returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${input.length} inputs`,
      );
    }
    const vectors: number[][] = new Array(input.length);
    data.forEach((item, i) => {
      const at = typeof item.index === 'number' ? item.index : i;
      const v = item.embedding;
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'number'))
        throw new AbortError('embeddings endpoint returned a non-numeric embedding');
      vectors[at] = v as number[];
    });
    return vectors;
  };

  const withRetry = (input: readonly string[]): Promise<number[][]> =>
    pRetry(() => requestBatch(input), {
      retries: options.retries ?? 4,
      minTimeout: options.minBackoffMs ?? 250,
      maxTimeout: options.maxBackoffMs ?? 8_000,
      factor: 2,
    });

  const checked = (vectors: number[][]): number[][] => {
    for (const v of vectors) {
      if (v.length !== dimension)
        throw new Error(`embedder ${id} returned a vector of dimension ${v.length}, expected ${dimension}`);
    }
    return vectors;
  };

  return {
    ...(options.similarityFloor !== undefined ? { similarityFloor: options.similarityFloor } : {}),
    async identity(): Promise<EmbedderIdentity> {
      if (dimension === undefined) {
        const [probe] = await withRetry(['dimension probe']);
        dimension = probe!.length;
      }
      return { id, dimension };
    },
    async embed(texts) {
      if (dimension === undefined) await this.identity();
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += batchSize)
        out.push(...checked(await withRetry(texts.slice(i, i + batchSize))));
      return out;
    },
  };
}
