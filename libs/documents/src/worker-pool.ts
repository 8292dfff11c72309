import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ConversionLimits } from './conversion-limits.js';
import type { ConvertedDocument, DocumentInput } from './document.js';
import { DocumentError, isDocumentErrorCode } from './document-error.js';
import type { WorkerReply, WorkerRequest } from './worker/conversion-worker.js';

// Built, the worker is compiled JavaScript beside this file. Run from sources (tests, and other
// packages' tests through the `quarry-source` condition), it is TypeScript, which a worker thread
// can only load through the workspace's TypeScript hooks (the ones test child processes use).
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(`./worker/conversion-worker.${FROM_SOURCES ? 'ts' : 'js'}`, import.meta.url);
const WORKER_EXEC_ARGV = FROM_SOURCES
  ? ['--import', new URL('../../testing/src/register-ts.mjs', import.meta.url).href]
  : [];

// A worker that converted a document successfully is kept for the next one (loading pdf.js or
// mammoth is most of a small document's cost), up to one idle worker per core, and retired after
// MAX_USES documents so nothing one document left behind accumulates for long. A worker whose
// conversion failed in any way is ended, never reused.
const MAX_IDLE = availableParallelism();
const MAX_USES = 50;

interface PooledWorker {
  worker: Worker;
  heapMb: number;
  uses: number;
}

const idle: PooledWorker[] = [];
let nextId = 0;

function spawn(heapMb: number): PooledWorker {
  const worker = new Worker(WORKER_URL, {
    execArgv: WORKER_EXEC_ARGV,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
  });
  const pooled = { worker, heapMb, uses: 0 };
  // One that ends while idle is forgotten.
  worker.once('exit', () => {
    const at = idle.indexOf(pooled);
    if (at >= 0) idle.splice(at, 1);
  });
  return pooled;
}

function take(heapMb: number): PooledWorker {
  const at = idle.findIndex((pooled) => pooled.heapMb === heapMb);
  const pooled = at >= 0 ? idle.splice(at, 1)[0]! : spawn(heapMb);
  pooled.worker.ref();
  return pooled;
}

function release(pooled: PooledWorker): void {
  pooled.uses++;
  if (pooled.uses >= MAX_USES || idle.length >= MAX_IDLE) {
    void pooled.worker.terminate();
    return;
  }
  // An idle worker never keeps the process alive.
  pooled.worker.unref();
  idle.push(pooled);
}

/**
 * Convert in a worker thread with a heap limit and a deadline: a hostile input ends that worker
 * (TIMEOUT, OUT_OF_MEMORY), never the caller's process; an abort ends it too.
 */
export function convertInWorker(
  input: DocumentInput,
  limits: Readonly<ConversionLimits>,
  signal: AbortSignal | undefined,
): Promise<ConvertedDocument> {
  const pooled = take(limits.maxHeapMb);
  const { worker } = pooled;
  const id = ++nextId;
  return new Promise<ConvertedDocument>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void, reuse: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (reuse) release(pooled);
      else void worker.terminate();
      outcome();
    };
    const fail = (error: unknown) => finish(() => reject(error), false);
    const timer = setTimeout(
      () =>
        fail(new DocumentError('TIMEOUT', `the conversion took longer than ${limits.timeoutMs} ms and was stopped`)),
      limits.timeoutMs,
    );
    const onAbort = () => fail(signal!.reason);
    const onMessage = (reply: WorkerReply) => {
      if (reply.id !== id) return;
      if (reply.ok) finish(() => resolve(reply.document), true);
      else fail(new DocumentError(isDocumentErrorCode(reply.code) ? reply.code : 'CORRUPT', reply.message));
    };
    const onError = (error: Error & { code?: string }) => {
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        fail(
          new DocumentError('OUT_OF_MEMORY', `the conversion needed more than ${limits.maxHeapMb} MB and was stopped`),
        );
      } else {
        fail(new DocumentError('CORRUPT', `the converter failed on this document: ${error.message}`));
      }
    };
    const onExit = (exitCode: number) =>
      fail(new DocumentError('CORRUPT', `the converter stopped (exit code ${exitCode}) without an answer`));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage({ id, input, limits: { ...limits } } satisfies WorkerRequest);
  });
}
