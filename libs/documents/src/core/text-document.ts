import type { ConvertedDocument } from '../document.js';
import { joinUnits, tidyText, type UnitText } from './document-text.js';

const FENCE = /^(```|~~~)/;
const SECTION_HEADING = /^#{1,2}\s+(\S.*?)\s*#*\s*$/;
const TITLE = /^#\s+(\S.*?)\s*#*\s*$/;

/** A Markdown document cut into sections at its level-1 and level-2 headings (not inside code fences). */
function markdownSections(text: string): UnitText[] {
  const sections: string[][] = [[]];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    const current = sections[sections.length - 1]!;
    if (!fenced && SECTION_HEADING.test(line) && current.some((l) => l.trim() !== '')) sections.push([line]);
    else current.push(line);
  }
  return sections.map((lines, i) => ({ kind: 'section', number: i + 1, text: lines.join('\n') }));
}

function markdownTitle(text: string): string | undefined {
  let fenced = false;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    const match = fenced ? null : TITLE.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

/** Plain text (one section) or Markdown (a section per top-level heading, titled by its first `#` heading). */
export function convertText(raw: string, format: 'markdown' | 'text', warnings: string[]): ConvertedDocument {
  const text = tidyText(raw);
  const { text: joined, units } = joinUnits(
    format === 'markdown' ? markdownSections(text) : [{ kind: 'section', number: 1, text }],
  );
  const title = format === 'markdown' ? markdownTitle(text) : undefined;
  return {
    format,
    mediaType: format === 'markdown' ? 'text/markdown' : 'text/plain',
    ...(title ? { title } : {}),
    metadata: {},
    text: joined,
    units,
    figures: [],
    tables: [],
    warnings,
  };
}
