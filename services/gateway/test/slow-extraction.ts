import { randomUUID } from 'node:crypto';
import { grpcErrors } from '@quarry/grpc';
import type { StubReply } from './stub-backend.js';

// extract_data as the extraction service answers it when its model takes a while: a stub reply
// (stub-backend.ts) that answers after `delayMs` unless the call's signal aborts first, so a test
// sees the gateway stop a running call, as a real service sees its caller cancel.

/** A proto3 JSON value, as a stub reply answers. */
type Json = Awaited<ReturnType<StubReply>>;

export interface SlowExtraction {
  /** The reply to give `stub.reply('extract_data', …)`. */
  readonly reply: StubReply;
  /** How long the next answers take. */
  delayMs: number;
  /** Calls received; those whose signal aborted before the answer; those answered (a result stored). */
  readonly requests: number;
  readonly aborted: number;
  readonly stored: number;
}

/** A completed extraction of `data`, every value found verbatim, by the model `fake-model-1` of openai. */
export function slowExtraction(data: { [key: string]: Json }): SlowExtraction {
  const counts = { requests: 0, aborted: 0, stored: 0 };
  let delayMs = 0;
  const paths = Object.keys(data).map((key) => `/${key}`);
  const reply: StubReply = async (_request, { signal }) => {
    counts.requests += 1;
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(grpcErrors.CANCELLED());
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, delayMs);
      const onAbort = () => {
        clearTimeout(timer);
        counts.aborted += 1;
        // What the gateway's gRPC client throws when its call is cancelled.
        reject(grpcErrors.CANCELLED());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    counts.stored += 1;
    return {
      extractionId: randomUUID(),
      data,
      fieldConfidences: Object.fromEntries(paths.map((path) => [path, 1])),
      overallConfidence: 1,
      status: 'EXTRACTION_STATUS_COMPLETED',
      fields: paths.map((path) => ({ path, grounding: 'GROUNDING_KIND_EXACT', confidence: 1 })),
      provider: 'openai',
      model: 'fake-model-1',
      modelUsage: { provider: 'openai', model: 'fake-model-1', inputTokens: '100', outputTokens: '20' },
    };
  };
  return {
    reply,
    get delayMs() {
      return delayMs;
    },
    set delayMs(ms: number) {
      delayMs = ms;
    },
    get requests() {
      return counts.requests;
    },
    get aborted() {
      return counts.aborted;
    },
    get stored() {
      return counts.stored;
    },
  };
}
