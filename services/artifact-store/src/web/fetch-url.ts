import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import type { artifactV1 } from '@quarry/contracts';
import { QuarryError } from '@quarry/grpc';
import { request, type Dispatcher } from 'undici';
import { checkTargetUrl, PUBLIC_ONLY, type TargetPolicy } from '../core/url-targets.js';
import { artifactErrors } from '../errors.js';
import { BlockedTargetError, guardedAgent, systemResolver, type Resolver } from './guarded-agent.js';

/**
 * import_url's fetch (docs/adr/0057-import-url-ssrf-guard.md): a GET of an http(s) URL through
 * the guarded agent, following at most `maxRedirects` redirects itself so that each new URL is
 * checked like the first, reading at most `maxBytes` of body (streamed: past the limit the
 * transfer is aborted) within `timeoutMs` for everything. Every failure is one of the artifact
 * store's URL_* errors; nothing is stored by this module.
 */

export interface UrlFetchSettings {
  policy: TargetPolicy;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
  resolve: Resolver;
}

/** Public targets only, 32 MiB, 30 s, 5 redirects (QUARRY_IMPORT_URL_* change them). */
export const URL_FETCH_DEFAULTS: UrlFetchSettings = Object.freeze({
  policy: PUBLIC_ONLY,
  maxBytes: 32 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 5,
  resolve: systemResolver,
});

/** What came back, and the record of where from (import_url stores it with the document). */
export interface FetchedUrl {
  bytes: Buffer;
  fetched: artifactV1.DocumentFetch;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Room to connect within the deadline, and no more than it. */
const CONNECT_TIMEOUT_MS = 10_000;
const DECODERS: Readonly<Record<string, (bytes: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

interface Signals {
  caller: AbortSignal;
  timeout: AbortSignal;
}

/** Stops reading a body that is not wanted (its abort is expected, not an error to report). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

const header = (headers: Dispatcher.ResponseData['headers'], name: string): string | undefined => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
};

/** The body, at most `maxBytes` of it (else URL_TOO_LARGE, the transfer aborted), decoded if the server encoded it. */
async function readBody(url: string, response: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => artifactErrors.URL_TOO_LARGE({ url, limit: maxBytes });
  const declared = Number(header(response.headers, 'content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(response.body);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      discard(response.body);
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks, size);
  const encoding = header(response.headers, 'content-encoding')?.trim().toLowerCase();
  if (!encoding || encoding === 'identity') return body;
  const decode = DECODERS[encoding];
  if (!decode) throw artifactErrors.URL_UNSUPPORTED_CONTENT({ url, reason: `its content-encoding is ${encoding}` });
  try {
    return await decode(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError)
      throw tooLarge();
    throw artifactErrors.URL_UNSUPPORTED_CONTENT({ url, reason: `its ${encoding} encoding is damaged` });
  }
}

/**
 * A request's failure as the caller's error: a refused target, the deadline, or an unreachable
 * server; the caller's own cancellation stays what it is.
 */
function fetchFailure(error: unknown, url: string, signals: Signals, timeoutMs: number): unknown {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof BlockedTargetError)
      return artifactErrors.URL_BLOCKED(
        { url, rule: cause.blocked.rule, reason: cause.message },
        { details: { rule: cause.blocked.rule } },
      );
    if (cause instanceof AggregateError) {
      const blocked = cause.errors.find((e) => e instanceof BlockedTargetError);
      if (blocked) return fetchFailure(blocked, url, signals, timeoutMs);
    }
  }
  if (error instanceof QuarryError || signals.caller.aborted) return error;
  if (signals.timeout.aborted) return artifactErrors.URL_TIMEOUT({ url, limitMs: timeoutMs });
  const code = (error as NodeJS.ErrnoException).code;
  return artifactErrors.URL_UNREACHABLE({ url, reason: code ? `${code}: ${(error as Error).message}` : String(error) });
}

export async function fetchUrl(raw: string, settings: UrlFetchSettings, signal: AbortSignal): Promise<FetchedUrl> {
  const signals = { caller: signal, timeout: AbortSignal.timeout(settings.timeoutMs) };
  const both = AbortSignal.any([signal, signals.timeout]);
  const agent = guardedAgent({
    policy: settings.policy,
    resolve: settings.resolve,
    connectTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, settings.timeoutMs),
  });
  let current = raw;
  try {
    for (let redirects = 0; ; redirects++) {
      const checked = checkTargetUrl(current);
      if ('blocked' in checked)
        throw artifactErrors.URL_BLOCKED(
          { url: current, rule: checked.blocked.rule, reason: checked.blocked.explanation },
          { details: { rule: checked.blocked.rule } },
        );
      let response: Dispatcher.ResponseData;
      try {
        response = await request(checked.url, {
          dispatcher: agent,
          method: 'GET',
          signal: both,
          headers: {
            accept: 'text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5',
            'accept-encoding': 'gzip, deflate, br',
            'user-agent': 'Quarry-import_url/1',
          },
        });
      } catch (error) {
        throw fetchFailure(error, current, signals, settings.timeoutMs);
      }
      const location = header(response.headers, 'location');
      if (REDIRECTS.has(response.statusCode) && location) {
        discard(response.body);
        if (redirects >= settings.maxRedirects)
          throw artifactErrors.URL_TOO_MANY_REDIRECTS({ url: raw, limit: settings.maxRedirects });
        current = new URL(location, checked.url).href;
        continue;
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        discard(response.body);
        throw artifactErrors.URL_HTTP_ERROR(
          { url: current, status: response.statusCode },
          { details: { status: response.statusCode } },
        );
      }
      let bytes: Buffer;
      try {
        bytes = await readBody(current, response, settings.maxBytes);
      } catch (error) {
        throw fetchFailure(error, current, signals, settings.timeoutMs);
      }
      const contentType = header(response.headers, 'content-type');
      const etag = header(response.headers, 'etag');
      const lastModified = header(response.headers, 'last-modified');
      return {
        bytes,
        fetched: {
          requestedUrl: raw,
          finalUrl: checked.url.href,
          fetchedAt: new Date(),
          httpStatus: response.statusCode,
          ...(contentType ? { contentType } : {}),
          ...(etag ? { etag } : {}),
          ...(lastModified ? { lastModified } : {}),
        },
      };
    }
  } finally {
    await agent.destroy();
  }
}
