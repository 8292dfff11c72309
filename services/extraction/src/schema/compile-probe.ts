import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { AJV_OPTIONS, type SchemaDraft } from '../core/schema-guard.js';

/**
 * Ajv compiles a schema to JavaScript, and the cost of compiling is not bounded by the schema's
 * size: with Ajv's default `inlineRefs: true`, a small schema whose `$defs` entry is referenced
 * from many properties can take seconds and hundreds of megabytes to compile, or exhaust the
 * heap (measured in ADR 0011). `inlineRefs: false` removes that blow-up, but Ajv is a code
 * generator with many keywords and no guarantee, so an untrusted schema is first compiled in a
 * worker thread with a deadline and a heap limit; only a schema that compiled there is compiled
 * again on the main thread (the worker stays up between calls and starts unreferenced, so it
 * never keeps the process alive).
 */

export type ProbeResult =
  { status: 'ok' } | { status: 'invalid'; message: string } | { status: 'timeout'; message: string };

const WORKER_HEAP_MB = 256;
const WORKER_STARTUP_MS = 15_000;

const require = createRequire(import.meta.url);
const MODULES = {
  ajv2020: require.resolve('ajv/dist/2020'),
  ajv07: require.resolve('ajv'),
  formats: require.resolve('ajv-formats'),
};

// CommonJS source of the worker (an eval'd worker needs no file next to the compiled sources).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const addFormats = require(workerData.modules.formats);
const make = (Ajv) => { const ajv = new Ajv(workerData.options); addFormats(ajv); ajv.compile({ type: 'object' }); return ajv; };
const ajvs = { '2020-12': make(require(workerData.modules.ajv2020)), 'draft-07': make(require(workerData.modules.ajv07)) };
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id, draft, schema }) => {
  const ajv = ajvs[draft];
  try {
    ajv.compile(schema);
    parentPort.postMessage({ id, ok: true });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, message: String((error && error.message) || error) });
  } finally {
    try { ajv.removeSchema(schema); } catch {}
  }
});
`;

interface Running {
  worker: Worker;
  ready: Promise<void>;
}

let running: Running | undefined;
let queue: Promise<unknown> = Promise.resolve();
let nextId = 0;

/** Compile `schema` in the worker within `timeoutMs` (compilation time only; jobs run one at a time). */
export function probeCompile(schema: unknown, draft: SchemaDraft, timeoutMs: number): Promise<ProbeResult> {
  const job = queue.then(() => runProbe(schema, draft, timeoutMs));
  queue = job.catch(() => undefined);
  return job;
}

/** Stop the worker (it is unreferenced anyway; this is for an orderly shutdown). */
export async function stopCompileProbe(): Promise<void> {
  const current = running;
  running = undefined;
  if (current) await current.worker.terminate();
}

function start(): Running {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { modules: MODULES, options: { ...AJV_OPTIONS } },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  worker.unref();
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the schema compiler did not start in time')), WORKER_STARTUP_MS);
    worker.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
  // A failed start is reported to the job that awaits it; this only keeps it from being "unhandled".
  ready.catch(() => undefined);
  return { worker, ready };
}

function discard(current: Running): void {
  if (running === current) running = undefined;
  void current.worker.terminate();
}

async function runProbe(schema: unknown, draft: SchemaDraft, timeoutMs: number): Promise<ProbeResult> {
  const current = running ?? (running = start());
  try {
    await current.ready;
  } catch (error) {
    discard(current);
    return { status: 'timeout', message: `the schema compiler is unavailable (${(error as Error).message})` };
  }
  const id = ++nextId;
  return new Promise<ProbeResult>((resolve) => {
    const finish = (result: ProbeResult, kill: boolean) => {
      clearTimeout(timer);
      current.worker.off('message', onMessage);
      current.worker.off('error', onError);
      current.worker.off('exit', onExit);
      if (kill) discard(current);
      resolve(result);
    };
    const onMessage = (message: { id?: number; ok?: boolean; message?: string }) => {
      if (message.id !== id) return;
      finish(message.ok ? { status: 'ok' } : { status: 'invalid', message: message.message ?? 'unknown error' }, false);
    };
    const onError = (error: Error & { code?: string }) =>
      finish(
        {
          status: 'timeout',
          message:
            error.code === 'ERR_WORKER_OUT_OF_MEMORY'
              ? `compiling it needs more than ${WORKER_HEAP_MB} MB`
              : error.message,
        },
        true,
      );
    const onExit = () => finish({ status: 'timeout', message: 'the schema compiler stopped' }, true);
    const timer = setTimeout(
      () => finish({ status: 'timeout', message: `compiling it takes longer than ${timeoutMs} ms` }, true),
      timeoutMs,
    );
    current.worker.on('message', onMessage);
    current.worker.once('error', onError);
    current.worker.once('exit', onExit);
    current.worker.postMessage({ id, draft, schema });
  });
}
