import { parentPort } from 'node:worker_threads';
import type { ConversionLimits } from '../conversion-limits.js';
import { convertBytes } from '../convert-bytes.js';
import type { ConvertedDocument, DocumentInput } from '../document.js';
import { DocumentError } from '../document-error.js';

/** What the host sends for one conversion, and what the worker answers (matched by `id`). */
export interface WorkerRequest {
  id: number;
  input: DocumentInput;
  limits: ConversionLimits;
}
export type WorkerReply =
  { id: number; ok: true; document: ConvertedDocument } | { id: number; ok: false; code: string; message: string };

async function reply({ id, input, limits }: WorkerRequest): Promise<void> {
  try {
    const document = await convertBytes(input, limits);
    // Figures move to the host without a copy; several may share one buffer.
    const buffers = new Set(document.figures.map((figure) => figure.bytes.buffer as ArrayBuffer));
    parentPort!.postMessage({ id, ok: true, document } satisfies WorkerReply, [...buffers]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = error instanceof DocumentError ? error.code : 'CORRUPT';
    parentPort!.postMessage({ id, ok: false, code, message } satisfies WorkerReply);
  }
}

// The libraries' console chatter about a malformed file is not the service's log (pdf.ts reads
// pdf.js's warnings by replacing console.warn while it converts).
for (const method of ['debug', 'error', 'info', 'log', 'trace', 'warn'] as const) console[method] = () => {};

// One conversion at a time: the host sends the next request only after this one's reply.
parentPort!.on('message', (request: WorkerRequest) => void reply(request));
