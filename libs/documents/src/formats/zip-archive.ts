import { unzipSync, zipSync } from 'fflate';
import type { ConversionLimits } from '../conversion-limits.js';
import { checkArchive, type ArchiveEntry } from '../core/archive-check.js';
import { DocumentError } from '../document-error.js';

/** An Office file's parts, inflated after the bomb check. */
export interface Archive {
  names: string[];
  /** A part's bytes, or undefined when absent. */
  bytes(name: string): Uint8Array | undefined;
  /** A part as UTF-8 text, or undefined when absent. */
  text(name: string): string | undefined;
  /** The whole archive again, every part stored uncompressed (nothing left to inflate). */
  stored(): Uint8Array;
}

function unzip(bytes: Uint8Array, filter: (entry: ArchiveEntry) => boolean): Record<string, Uint8Array> {
  try {
    return unzipSync(bytes, { filter });
  } catch (error) {
    throw new DocumentError('CORRUPT', `the zip archive could not be read: ${(error as Error).message}`);
  }
}

/** A zip's entries as its central directory declares them; nothing is inflated. */
export function listArchive(bytes: Uint8Array): ArchiveEntry[] {
  const entries: ArchiveEntry[] = [];
  unzip(bytes, (entry) => {
    entries.push({ name: entry.name, size: entry.size, originalSize: entry.originalSize });
    return false;
  });
  return entries;
}

/**
 * Open a listed zip: its declared sizes checked for a bomb, then every entry inflated into a
 * buffer of its declared size (fflate writes no further, so a lying declaration yields a
 * truncated part, never more memory).
 */
export function openArchive(
  bytes: Uint8Array,
  entries: readonly ArchiveEntry[],
  limits: Readonly<ConversionLimits>,
): Archive {
  checkArchive(entries, limits);
  const parts = unzip(bytes, (entry) => !entry.name.endsWith('/'));
  const decoder = new TextDecoder('utf-8');
  return {
    names: entries.map((entry) => entry.name),
    bytes: (name) => parts[name],
    text: (name) => (parts[name] ? decoder.decode(parts[name]) : undefined),
    stored: () => zipSync(parts, { level: 0 }),
  };
}
