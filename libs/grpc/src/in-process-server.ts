import { status } from '@grpc/grpc-js';
import { grpcErrors, QuarryError } from './errors.js';
import type { CallRunner } from './serve-call.js';
import type { InProcessServer } from './transport.js';

/** A registered method as the in-process server dispatches it: the definition's codec and its runner. */
export interface InProcessMethod {
  requestDeserialize(bytes: Buffer): unknown;
  responseSerialize(value: unknown): Buffer;
  run: CallRunner;
}

export interface InProcessDispatcher {
  server: InProcessServer;
  /** Refuse new calls (UNAVAILABLE, as a server shutting down does); resolves once none is in flight. */
  drain(): Promise<void>;
  /** Cut the calls still in flight: their handlers' signals abort, their callers get UNAVAILABLE. */
  cancelAll(): void;
}

/**
 * The server side of the in-process transport: the same methods the grpc-js server serves, each
 * through the same runner (identity, deadline, cancellation, error mapping), reached by a function
 * call instead of an HTTP/2 stream. The bytes are decoded and encoded by the same generated codec
 * grpc-js uses, so a handler gets a message of its own, never the caller's object, and a message
 * that does not encode fails the same way. Requests over the server's receive limit fail
 * RESOURCE_EXHAUSTED, as over HTTP/2.
 */
export function createInProcessDispatcher(
  serviceNames: readonly string[],
  methods: ReadonlyMap<string, InProcessMethod>,
  maxReceiveBytes: number,
): InProcessDispatcher {
  const inFlight = new Set<() => void>();
  let accepting = true;
  let drained: (() => void) | undefined;

  const server: InProcessServer = {
    serviceNames,
    async unary(path, bytes, { metadata, deadline, cancelled }) {
      if (!accepting) throw grpcErrors.SERVICE_UNAVAILABLE();
      const method = methods.get(path);
      if (!method) {
        throw new QuarryError(
          'UNIMPLEMENTED',
          status.UNIMPLEMENTED,
          `The server does not implement the method ${path}`,
        );
      }
      if (maxReceiveBytes >= 0 && bytes.length > maxReceiveBytes) {
        throw new QuarryError(
          'RESOURCE_EXHAUSTED',
          status.RESOURCE_EXHAUSTED,
          `Received message larger than max (${bytes.length} vs ${maxReceiveBytes})`,
        );
      }
      let request: unknown;
      try {
        request = method.requestDeserialize(bytes);
      } catch {
        throw new QuarryError('INTERNAL', status.INTERNAL, 'Error deserializing request');
      }
      return new Promise<Buffer>((resolve, reject) => {
        // The runner listens for cancellation once per call; a forced shutdown cancels it too.
        let onCancel: (() => void) | undefined;
        const cut = () => {
          onCancel?.();
          reject(grpcErrors.SERVICE_UNAVAILABLE());
        };
        const settled = () => {
          inFlight.delete(cut);
          if (inFlight.size === 0) drained?.();
        };
        inFlight.add(cut);
        method
          .run({
            request,
            // The server's own copy: what the handler's side does to it never reaches the caller's.
            metadata: metadata.clone(),
            deadline,
            onCancel(listener) {
              onCancel = listener;
              cancelled?.addEventListener('abort', listener, { once: true });
              return () => {
                onCancel = undefined;
                cancelled?.removeEventListener('abort', listener);
              };
            },
          })
          .then(
            (response) => {
              settled();
              try {
                resolve(method.responseSerialize(response));
              } catch {
                reject(new QuarryError('INTERNAL', status.INTERNAL, 'Error serializing response'));
              }
            },
            (error: unknown) => {
              settled();
              reject(error);
            },
          );
      });
    },
  };

  return {
    server,
    drain() {
      accepting = false;
      if (inFlight.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        drained = resolve;
      });
    },
    cancelAll() {
      for (const cancel of [...inFlight]) cancel();
    },
  };
}
