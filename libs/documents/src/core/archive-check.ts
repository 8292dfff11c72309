import type { ConversionLimits } from '../conversion-limits.js';
import { DocumentError } from '../document-error.js';

/** An entry of a zip archive as its central directory declares it, before anything is inflated. */
export interface ArchiveEntry {
  name: string;
  /** Compressed size in bytes. */
  size: number;
  /** Declared uncompressed size in bytes. */
  originalSize: number;
}

// An Office file has tens to a few thousand parts; tens of thousands is a crafted archive.
const MAX_ENTRIES = 20_000;
// Small parts legitimately compress very well (an XML file of repeated empty cells); the ratio
// check applies to entries large enough to matter.
const RATIO_CHECKED_FROM = 1024 * 1024;

/**
 * Refuse a zip bomb from its central directory alone: too many entries, a declared total over
 * the limit, or an entry whose declared size is an implausible multiple of its compressed size.
 * The declared sizes then bound the inflation itself (formats/zip-archive.ts inflates into
 * buffers of exactly the declared size), so an archive that lies about them gains nothing.
 */
export function checkArchive(entries: readonly ArchiveEntry[], limits: Readonly<ConversionLimits>): void {
  if (entries.length > MAX_ENTRIES) {
    throw new DocumentError(
      'ARCHIVE_BOMB',
      `the archive has ${entries.length} entries; at most ${MAX_ENTRIES} are read`,
    );
  }
  let total = 0;
  for (const entry of entries) {
    total += entry.originalSize;
    const ratio = entry.originalSize / Math.max(entry.size, 1);
    if (entry.originalSize >= RATIO_CHECKED_FROM && ratio > limits.maxCompressionRatio) {
      throw new DocumentError(
        'ARCHIVE_BOMB',
        `the archive's entry ${entry.name} inflates ${Math.round(ratio)}-fold (${entry.originalSize} bytes); at most ${limits.maxCompressionRatio}-fold is read`,
      );
    }
  }
  if (total > limits.maxUncompressedBytes) {
    throw new DocumentError(
      'ARCHIVE_BOMB',
      `the archive inflates to ${total} bytes; at most ${limits.maxUncompressedBytes} bytes are read`,
    );
  }
}
