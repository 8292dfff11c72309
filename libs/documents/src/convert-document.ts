import { checkSize, resolveLimits, type ConversionLimits } from './conversion-limits.js';
import type { ConvertedDocument, DocumentInput } from './document.js';
import { convertInWorker } from './worker-pool.js';

export interface ConversionOptions {
  limits?: Partial<ConversionLimits>;
  signal?: AbortSignal;
}

/**
 * Convert a document to text, units, figures and tables. The conversion runs in a worker thread
 * with a heap limit and a deadline: a hostile input ends that worker (TIMEOUT, OUT_OF_MEMORY),
 * never the caller's process. Rejects with a DocumentError, or with the signal's reason when
 * aborted.
 */
export async function convertDocument(
  input: DocumentInput,
  options: ConversionOptions = {},
): Promise<ConvertedDocument> {
  const limits = resolveLimits(options.limits);
  checkSize(input.bytes.byteLength, limits);
  options.signal?.throwIfAborted();
  return convertInWorker(
    {
      bytes: input.bytes,
      ...(input.fileName !== undefined ? { fileName: input.fileName } : {}),
      ...(input.mediaType !== undefined ? { mediaType: input.mediaType } : {}),
    },
    limits,
    options.signal,
  );
}
