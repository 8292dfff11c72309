import { DocumentError } from './document-error.js';

/** What one conversion may use. Every limit is enforced; exceeding one is a DocumentError. */
export interface ConversionLimits {
  /** Largest input accepted (TOO_LARGE). */
  maxBytes: number;
  /** Most pages, slides or sheets (TOO_MANY_UNITS). */
  maxUnits: number;
  /** Wall-clock deadline of the whole conversion, worker start included (TIMEOUT). */
  timeoutMs: number;
  /** The worker's V8 heap (old generation); past it the worker is ended (OUT_OF_MEMORY). */
  maxHeapMb: number;
  /** Sum of the uncompressed sizes an Office file's zip declares (ARCHIVE_BOMB). */
  maxUncompressedBytes: number;
  /** Largest uncompressed/compressed ratio of one zip entry (ARCHIVE_BOMB). */
  maxCompressionRatio: number;
  /** Largest embedded image kept, in pixels; a larger one is skipped with a warning. */
  maxImagePixels: number;
  /** Most figures kept from one document; the rest are skipped with a warning. */
  maxFigures: number;
  /** Longest side of a PDF figure as kept, in pixels; a larger image is scaled down to it. */
  maxFigureSide: number;
}

export const DEFAULT_CONVERSION_LIMITS: Readonly<ConversionLimits> = Object.freeze({
  maxBytes: 100 * 1024 * 1024,
  maxUnits: 2_000,
  timeoutMs: 120_000,
  maxHeapMb: 512,
  maxUncompressedBytes: 512 * 1024 * 1024,
  maxCompressionRatio: 200,
  maxImagePixels: 25_000_000,
  maxFigures: 500,
  maxFigureSide: 2_048,
});

/** The defaults with `overrides` applied; a limit that is not a positive number fails at once. */
export function resolveLimits(overrides: Partial<ConversionLimits> = {}): Readonly<ConversionLimits> {
  const limits = { ...DEFAULT_CONVERSION_LIMITS };
  for (const [key, value] of Object.entries(overrides) as [keyof ConversionLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (!(key in DEFAULT_CONVERSION_LIMITS)) throw new TypeError(`unknown conversion limit ${key}`);
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new TypeError(`conversion limit ${key} must be a positive number, got ${String(value)}`);
    }
    limits[key] = value;
  }
  return Object.freeze(limits);
}

/** TOO_LARGE for input over the byte limit (checked before any worker starts). */
export function checkSize(byteLength: number, limits: Readonly<ConversionLimits>): void {
  if (byteLength > limits.maxBytes) {
    throw new DocumentError(
      'TOO_LARGE',
      `the document is ${byteLength} bytes; at most ${limits.maxBytes} bytes are converted`,
    );
  }
}
