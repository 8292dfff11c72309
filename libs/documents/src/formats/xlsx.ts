import type { ConversionLimits } from '../conversion-limits.js';
import { joinUnits, type UnitText } from '../core/document-text.js';
import { columnIndex, gridRows, markdownTable } from '../core/sheet-grid.js';
import type { ConvertedDocument, DocumentTable } from '../document.js';
import { DocumentError } from '../document-error.js';
import { officeProperties } from './office-properties.js';
import { relationshipId, children, elements, readXml, relationships, textOf, type Element } from './office-xml.js';
import type { Archive } from './zip-archive.js';

/** The workbook's shared strings (xl/sharedStrings.xml), rich-text runs joined. */
function sharedStrings(archive: Archive, part: string | undefined): string[] {
  if (!part || archive.text(part) === undefined) return [];
  return elements(readXml(archive, part), 'si').map((si) =>
    // Phonetic runs (rPh) are reading aids for East Asian text, not part of the value.
    elements(si, 't')
      .filter((t) => (t.parentNode as Element | null)?.localName !== 'rPh')
      .map((t) => t.textContent ?? '')
      .join(''),
  );
}

function cellValue(cell: Element, strings: readonly string[]): string {
  const type = cell.getAttribute('t') ?? 'n';
  const value = children(cell, 'v')[0]?.textContent ?? '';
  switch (type) {
    case 's':
      return strings[Number(value)] ?? '';
    case 'inlineStr':
      return textOf(children(cell, 'is')[0] ?? cell);
    case 'b':
      return value === '1' ? 'TRUE' : value === '0' ? 'FALSE' : value;
    default:
      // Numbers are given as stored: a date is a serial day number, its format lives in styles.
      return value;
  }
}

function sheetRows(archive: Archive, part: string, strings: readonly string[]): string[][] {
  const xml = readXml(archive, part);
  const rows = elements(xml, 'row').map((row) => {
    let next = 0;
    const cells = children(row, 'c').map((cell) => {
      const column = columnIndex(cell.getAttribute('r') ?? '') ?? next;
      next = column + 1;
      return { column, value: cellValue(cell, strings).trim() };
    });
    return { cells };
  });
  return gridRows(rows);
}

/**
 * An Excel workbook sheet by sheet in workbook order: each sheet a unit holding its name as a
 * heading and its cells as a Markdown table (values as stored: shared strings resolved, formulas'
 * cached results, numbers unformatted), and each non-empty sheet as a table.
 */
export function convertXlsx(
  archive: Archive,
  limits: Readonly<ConversionLimits>,
  warnings: string[],
): ConvertedDocument {
  const workbook = readXml(archive, 'xl/workbook.xml');
  const rels = relationships(archive, 'xl/workbook.xml');
  const sheets = elements(workbook, 'sheet').map((sheet) => ({
    name: sheet.getAttribute('name') ?? '',
    rel: rels.get(relationshipId(sheet, 'id') ?? ''),
  }));
  if (sheets.length > limits.maxUnits) {
    throw new DocumentError(
      'TOO_MANY_UNITS',
      `the workbook has ${sheets.length} sheets; at most ${limits.maxUnits} are converted`,
    );
  }
  const strings = sharedStrings(
    archive,
    [...rels.values()].find((rel) => rel.type === 'sharedStrings' && !rel.external)?.target,
  );
  const units: UnitText[] = [];
  const tables: DocumentTable[] = [];
  sheets.forEach(({ name, rel }, index) => {
    const number = index + 1;
    // A chart sheet or dialog sheet has no cells.
    const rows = rel && rel.type === 'worksheet' && !rel.external ? sheetRows(archive, rel.target, strings) : [];
    units.push({ kind: 'sheet', number, text: [`## ${name}`, markdownTable(rows)].filter(Boolean).join('\n\n') });
    if (rows.length > 0) tables.push({ unit: number, caption: name, rows });
  });
  const properties = officeProperties(archive);
  const { text, units: spans } = joinUnits(units);
  return {
    format: 'xlsx',
    mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ...(properties.title ? { title: properties.title } : {}),
    ...(properties.author ? { author: properties.author } : {}),
    ...(properties.publishedAt ? { publishedAt: properties.publishedAt } : {}),
    ...(properties.language ? { language: properties.language } : {}),
    metadata: { ...properties.metadata, sheets: String(sheets.length) },
    text,
    units: spans,
    figures: [],
    tables,
    warnings,
  };
}
