import { parentPort, workerData } from 'node:worker_threads';
import type { ConversionLimits } from '../conversion-limits.js';
import { convertBytes } from '../convert-bytes.js';
import type { ConvertedDocument, DocumentInput } from '../document.js';
import { DocumentError } from '../document-error.js';

/** What the host sends (workerData) and what the worker answers (one message, then it ends). */
export interface WorkerRequest {
  input: DocumentInput;
  limits: ConversionLimits;
}
export type WorkerReply = { ok: true; document: ConvertedDocument } | { ok: false; code: string; message: string };

const { input, limits } = workerData as WorkerRequest;

async function reply(): Promise<void> {
  try {
    const document = await convertBytes(input, limits);
    // Figures move to the host without a copy; several may share one buffer.
    const buffers = new Set(document.figures.map((figure) => figure.bytes.buffer as ArrayBuffer));
    parentPort!.postMessage({ ok: true, document } satisfies WorkerReply, [...buffers]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof DocumentError ? error.code : 'CORRUPT';
    parentPort!.postMessage({ ok: false, code, message } satisfies WorkerReply);
  }
}

await reply();
