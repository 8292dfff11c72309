import http2 from 'node:http2';
import { Metadata, status } from '@grpc/grpc-js';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { type CallOptions, type ClientOptions, DEFAULT_CHANNEL_OPTIONS } from './client.js';
import { fromGrpcError, grpcErrors, QuarryError } from './errors.js';
import { IDENTITY_METADATA_KEY, REQUEST_ID_METADATA_KEY } from './identity.js';

export interface RawClient {
  /** Send already-encoded request bytes to `path` (`/pkg.Service/Method`); resolves to the encoded response. */
  unary(path: string, requestBytes: Uint8Array, options: CallOptions): Promise<Uint8Array>;
  close(): void;
}

export interface RawClientOptions extends Pick<ClientOptions, 'signer' | 'defaultDeadlineMs'> {
  /** Largest response accepted (grpc-js's client default: 4 MiB); larger ones fail RESOURCE_EXHAUSTED. */
  maxResponseBytes?: number;
  /** Ping an idle connection this often, and drop it when a ping goes unanswered (see DEFAULT_CHANNEL_OPTIONS). */
  keepaliveMs?: number;
  keepaliveTimeoutMs?: number;
}

const DEFAULT_DEADLINE_MS = 5_000;
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const { NGHTTP2_CANCEL } = http2.constants;
const tracer = trace.getTracer('@quarry/grpc');

/** The gRPC status an HTTP status stands for when a response carries no grpc-status (gRPC's HTTP mapping). */
function statusOfHttp(httpStatus: number): status {
  switch (httpStatus) {
    case 400:
      return status.INTERNAL;
    case 401:
      return status.UNAUTHENTICATED;
    case 403:
      return status.PERMISSION_DENIED;
    case 404:
      return status.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return status.UNAVAILABLE;
    default:
      return status.UNKNOWN;
  }
}

/** `grpc-timeout`: at most 8 digits and a unit. */
function grpcTimeout(ms: number): string {
  const millis = Math.max(1, Math.ceil(ms));
  if (millis < 1e8) return `${millis}m`;
  const seconds = Math.ceil(millis / 1000);
  return seconds < 1e8 ? `${seconds}S` : `${Math.min(Math.ceil(seconds / 3600), 99_999_999)}H`;
}

function decodeMessage(raw: string | undefined): string {
  if (!raw) return '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function failure(code: status, details: string, metadata = new Metadata()): QuarryError {
  return fromGrpcError({ code, details, message: details, metadata });
}

/** The one message of a unary response body: 5-byte prefix (uncompressed flag, length) + payload. */
function onlyMessage(body: Buffer): Uint8Array | QuarryError {
  if (body.length < 5) return failure(status.INTERNAL, 'The response carried no message');
  if (body[0] !== 0)
    return failure(status.INTERNAL, 'The response message is compressed, but no compression was negotiated');
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return failure(status.INTERNAL, 'A unary response must carry exactly one message');
  return body.subarray(5);
}

/**
 * A unary gRPC client for callers that encode and decode messages themselves: the gateway,
 * which works from descriptors and makes one such call per MCP tool call. It speaks the gRPC
 * wire protocol over node:http2 directly instead of through a grpc-js channel, because the
 * channel's per-call machinery (resolving, retry, load-balancing and subchannel call layers,
 * filters, Metadata objects) cost ~2.6× the CPU of the HTTP/2 stream itself and was the
 * largest item of the gateway's per-call cost (ADR 0017). Same contract as `createGrpcClient`:
 * every call signs the caller's identity, has a deadline, can be cancelled, and fails with the
 * QuarryError the server threw. Servers stay grpc-js.
 *
 * One HTTP/2 connection per client, opened at the first call and again after it closes (a
 * server's GOAWAY, a lost peer); it is pinged while open so a dead peer is noticed between calls.
 * The trace context of the active span is propagated, with a client span per call.
 */
export function createRawClient(address: string, options: RawClientOptions): RawClient {
  const authority = address.replace(/^dns:(\/\/\/)?/, '');
  const origin = `http://${authority}`;
  const defaultDeadlineMs = options.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const keepaliveMs = options.keepaliveMs ?? (DEFAULT_CHANNEL_OPTIONS['grpc.keepalive_time_ms'] as number);
  const keepaliveTimeoutMs =
    options.keepaliveTimeoutMs ?? (DEFAULT_CHANNEL_OPTIONS['grpc.keepalive_timeout_ms'] as number);
  let session: http2.ClientHttp2Session | undefined;
  let active = 0;
  let closed = false;

  function connect(): http2.ClientHttp2Session {
    if (session && !session.closed && !session.destroyed) return session;
    const opened = http2.connect(origin, { settings: { enablePush: false } });
    const forget = () => {
      if (session === opened) session = undefined;
    };
    // Errors reach the calls through their streams; a failed connection is simply dropped.
    opened.on('error', forget);
    opened.on('goaway', forget);
    opened.on('close', () => {
      forget();
      clearInterval(keepalive);
    });
    const keepalive = setInterval(() => {
      if (opened.closed || opened.destroyed) return;
      const timeout = setTimeout(() => opened.destroy(), keepaliveTimeoutMs);
      timeout.unref();
      opened.ping((error) => {
        clearTimeout(timeout);
        if (error) opened.destroy();
      });
    }, keepaliveMs);
    keepalive.unref();
    // An idle connection does not keep the process alive; a call in flight does.
    opened.unref();
    session = opened;
    return opened;
  }

  async function unary(path: string, requestBytes: Uint8Array, callOptions: CallOptions): Promise<Uint8Array> {
    if (closed) throw failure(status.UNAVAILABLE, 'The client is closed');
    const { signal, identity } = callOptions;
    const relative = callOptions.deadlineMs ?? defaultDeadlineMs;
    const timeoutMs = callOptions.deadline ? Math.min(relative, callOptions.deadline.getTime() - Date.now()) : relative;
    const token = await options.signer.sign(identity);
    if (signal?.aborted) throw grpcErrors.CANCELLED();
    if (timeoutMs <= 0) throw grpcErrors.DEADLINE_EXCEEDED();

    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      'grpc-timeout': grpcTimeout(timeoutMs),
      [IDENTITY_METADATA_KEY]: token,
      [REQUEST_ID_METADATA_KEY]: identity.requestId,
    };
    const slash = path.lastIndexOf('/');
    const span = tracer.startSpan(`grpc.${path.slice(1)}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'rpc.system': 'grpc', 'rpc.service': path.slice(1, slash), 'rpc.method': path.slice(slash + 1) },
    });
    propagation.inject(trace.setSpan(context.active(), span), headers);

    const framed = Buffer.allocUnsafe(5 + requestBytes.byteLength);
    framed[0] = 0;
    framed.writeUInt32BE(requestBytes.byteLength, 1);
    framed.set(requestBytes, 5);

    return new Promise<Uint8Array>((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      let settled = false;
      let responseHeaders: http2.IncomingHttpHeaders | undefined;
      let trailers: http2.IncomingHttpHeaders | undefined;
      let streamError: Error | undefined;
      const chunks: Buffer[] = [];
      let received = 0;

      const settle = (outcome: Uint8Array | QuarryError) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        if (--active === 0) session?.unref();
        const code = outcome instanceof QuarryError ? outcome.status : status.OK;
        span.setAttribute('rpc.grpc.status_code', code);
        if (outcome instanceof QuarryError) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
          reject(outcome);
        } else resolve(outcome);
        span.end();
      };
      const abandon = (error: QuarryError) => {
        settle(error);
        if (!stream.closed) stream.close(NGHTTP2_CANCEL);
      };
      const onAbort = () => abandon(grpcErrors.CANCELLED());
      const deadline = setTimeout(() => abandon(grpcErrors.DEADLINE_EXCEEDED()), timeoutMs);

      active++;
      try {
        const opened = connect();
        opened.ref();
        stream = opened.request(headers);
      } catch (error) {
        // The session refused a new stream (closing or destroyed an instant ago).
        settle(failure(status.UNAVAILABLE, `The call could not be started: ${(error as Error).message}`));
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      stream.on('response', (received) => {
        responseHeaders = received;
      });
      stream.on('trailers', (received) => {
        trailers = received;
      });
      stream.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxResponseBytes + 5)
          abandon(failure(status.RESOURCE_EXHAUSTED, `The response is larger than ${maxResponseBytes} bytes`));
        else chunks.push(chunk);
      });
      stream.on('error', (error) => {
        streamError = error;
      });
      stream.on('close', () => {
        if (settled) return;
        const statusHeaders = trailers ?? responseHeaders;
        const grpcStatus = statusHeaders?.['grpc-status'];
        if (grpcStatus === undefined) {
          const httpStatus = Number(responseHeaders?.[':status'] ?? 200);
          if (httpStatus !== 200) {
            return settle(
              failure(statusOfHttp(Number(httpStatus)), `The server answered HTTP ${httpStatus} without a gRPC status`),
            );
          }
          const reason = streamError?.message ?? 'the stream closed without a status';
          return settle(
            failure(
              responseHeaders ? status.INTERNAL : status.UNAVAILABLE,
              `The call to ${authority} failed: ${reason}`,
            ),
          );
        }
        const code = Number(grpcStatus);
        if (code !== status.OK) {
          return settle(
            failure(
              code,
              decodeMessage(statusHeaders?.['grpc-message'] as string | undefined),
              Metadata.fromHttp2Headers(statusHeaders!),
            ),
          );
        }
        settle(onlyMessage(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      });
      stream.end(framed);
    });
  }

  return {
    unary,
    close() {
      closed = true;
      session?.close();
      session = undefined;
    },
  };
}
