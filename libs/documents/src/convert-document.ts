import { Worker } from 'node:worker_threads';
import { checkSize, resolveLimits, type ConversionLimits } from './conversion-limits.js';
import type { ConvertedDocument, DocumentInput } from './document.js';
import { DocumentError, isDocumentErrorCode } from './document-error.js';
import type { WorkerReply, WorkerRequest } from './worker/conversion-worker.js';

export interface ConversionOptions {
  limits?: Partial<ConversionLimits>;
  signal?: AbortSignal;
}

// Built, the worker is compiled JavaScript beside this file. Run from sources (tests, and other
// packages' tests through the `quarry-source` condition), it is TypeScript, which a worker thread
// can only load through the workspace's TypeScript hooks (the ones test child processes use).
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(`./worker/conversion-worker.${FROM_SOURCES ? 'ts' : 'js'}`, import.meta.url);
const WORKER_EXEC_ARGV = FROM_SOURCES
  ? ['--import', new URL('../../testing/src/register-ts.mjs', import.meta.url).href]
  : [];

/**
 * Convert a document to text, units, figures and tables. The conversion runs in a worker thread
 * of its own with a heap limit and a deadline: a hostile input ends that worker (TIMEOUT,
 * OUT_OF_MEMORY), never the caller's process. Rejects with a DocumentError, or with the signal's
 * reason when aborted.
 */
export async function convertDocument(
  input: DocumentInput,
  options: ConversionOptions = {},
): Promise<ConvertedDocument> {
  const limits = resolveLimits(options.limits);
  checkSize(input.bytes.byteLength, limits);
  const { signal } = options;
  signal?.throwIfAborted();
  const request: WorkerRequest = {
    input: {
      bytes: input.bytes,
      ...(input.fileName !== undefined ? { fileName: input.fileName } : {}),
      ...(input.mediaType !== undefined ? { mediaType: input.mediaType } : {}),
    },
    limits: { ...limits },
  };
  return new Promise<ConvertedDocument>((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      workerData: request,
      execArgv: WORKER_EXEC_ARGV,
      resourceLimits: { maxOldGenerationSizeMb: limits.maxHeapMb },
      stdout: true,
      stderr: true,
    });
    // The libraries' console chatter about a malformed file is not the caller's log.
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const fail = (error: unknown) => finish(() => reject(error));
    const timer = setTimeout(
      () =>
        fail(new DocumentError('TIMEOUT', `the conversion took longer than ${limits.timeoutMs} ms and was stopped`)),
      limits.timeoutMs,
    );
    const onAbort = () => fail(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: WorkerReply) => {
      if (reply.ok) finish(() => resolve(reply.document));
      else fail(new DocumentError(isDocumentErrorCode(reply.code) ? reply.code : 'CORRUPT', reply.message));
    });
    worker.once('error', (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        fail(
          new DocumentError('OUT_OF_MEMORY', `the conversion needed more than ${limits.maxHeapMb} MB and was stopped`),
        );
      } else {
        fail(new DocumentError('CORRUPT', `the converter failed on this document: ${error.message}`));
      }
    });
    worker.once('exit', (exitCode) =>
      fail(new DocumentError('CORRUPT', `the converter stopped (exit code ${exitCode}) without an answer`)),
    );
  });
}
