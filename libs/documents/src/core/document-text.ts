import type { DocumentUnit } from '../document.js';

/** One unit's text before the units are joined into the document's text. */
export interface UnitText {
  kind: DocumentUnit['kind'];
  number: number;
  text: string;
}

const UNIT_SEPARATOR = '\n\n';

/**
 * Join units into one text, separated by a blank line, with each unit's character span. A unit
 * with no text keeps its place (an empty span), so unit numbers stay those of the source.
 */
export function joinUnits(parts: readonly UnitText[]): { text: string; units: DocumentUnit[] } {
  let text = '';
  const units: DocumentUnit[] = [];
  parts.forEach((part, index) => {
    if (index > 0) text += UNIT_SEPARATOR;
    const body = part.text.trim();
    const start = text.length;
    text += body;
    units.push({ kind: part.kind, number: part.number, start, end: text.length });
  });
  return { text, units };
}

/** Line endings normalised to \n, trailing spaces dropped, runs of blank lines collapsed to one. */
export function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
