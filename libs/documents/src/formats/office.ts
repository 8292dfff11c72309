import type { ConversionLimits } from '../conversion-limits.js';
import { officeKind } from '../core/office-kind.js';
import type { ConvertedDocument } from '../document.js';
import { convertDocx } from './docx.js';
import { convertPptx } from './pptx.js';
import { convertXlsx } from './xlsx.js';
import { listArchive, openArchive } from './zip-archive.js';

/** A zip that is a Word, PowerPoint or Excel file (decided by its parts), bomb-checked, converted. */
export async function convertOffice(bytes: Uint8Array, limits: Readonly<ConversionLimits>): Promise<ConvertedDocument> {
  const entries = listArchive(bytes);
  const kind = officeKind(entries.map((entry) => entry.name));
  const archive = openArchive(bytes, entries, limits);
  const warnings: string[] = [];
  switch (kind) {
    case 'docx':
      return convertDocx(archive, limits, warnings);
    case 'pptx':
      return convertPptx(archive, limits, warnings);
    case 'xlsx':
      return convertXlsx(archive, limits, warnings);
  }
}
