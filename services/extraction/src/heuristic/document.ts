import { labelWords } from './labels.js';

/**
 * A source text read as a semi-structured document: its lines, its "label: value" pairs (also from
 * two-column tables and tab-separated lines), its sections (a heading, a "Label:" line with no
 * value, or a short title-like line, followed by lines up to the next blank line), its bullet
 * lists and its tables.
 */

export interface Line {
  text: string;
  /** Offset of the line in the source text. */
  start: number;
}

export interface Pair {
  /** The label's words (labelWords). */
  label: string[];
  rawLabel: string;
  value: string;
  /** Offset of the value in the source text. */
  valueStart: number;
  line: number;
  /** Index of the section the pair belongs to, if any. */
  section?: number;
}

export interface Section {
  title: string;
  label: string[];
  line: number;
  /** First line of the body (inclusive) and the line after it (exclusive). */
  from: number;
  to: number;
}

export interface Table {
  header: string[];
  rows: string[][];
  line: number;
}

export interface DocumentModel {
  text: string;
  lines: Line[];
  pairs: Pair[];
  sections: Section[];
  tables: Table[];
}

const BULLET = /^\s*(?:[-*•·▪]|\d{1,2}[.)])\s+(.*\S)\s*$/u;
const HEADING = /^\s*#{1,6}\s+(.*\S)\s*$/u;
const PAIR = /^\s*(?:[-*•·▪]\s+)?(?:\*\*)?([^:\t|]{1,60}?)(?:\*\*)?\s*:(?:\*\*)?(?:\s+(.*\S))?\s*$/u;
const TAB_PAIR = /^\s*([^\t]{1,60}?)\t+(.*\S)\s*$/u;

export function readDocument(text: string): DocumentModel {
  const lines: Line[] = [];
  let at = 0;
  for (const line of text.split('\n')) {
    lines.push({ text: line.replace(/\r$/, ''), start: at });
    at += line.length + 1;
  }
  const tables = readTables(lines);
  const sections = readSections(lines);
  const pairs: Pair[] = [];
  lines.forEach((line, i) => {
    const pair = readPair(line, i) ?? tablePair(line, i);
    if (!pair) return;
    const section = sections.findIndex((s) => i >= s.from && i < s.to);
    for (const one of splitInline(pair)) pairs.push(section >= 0 ? { ...one, section } : one);
  });
  return { text, lines, pairs, sections, tables };
}

function readPair(line: Line, index: number): Pair | undefined {
  const m = PAIR.exec(line.text) ?? TAB_PAIR.exec(line.text);
  if (!m) return undefined;
  const rawLabel = m[1]!.trim();
  const label = labelWords(rawLabel);
  // A label is a short name, not a sentence or a URL scheme.
  if (label.length === 0 || label.length > 6 || /[.!?]\s/.test(rawLabel) || /^https?$/i.test(rawLabel))
    return undefined;
  const value = (m[2] ?? '').trim();
  // The value is the line's trimmed tail.
  const valueStart = line.start + (value ? line.text.lastIndexOf(value) : line.text.length);
  return { label, rawLabel, value, valueStart, line: index };
}

/** "High: 4 °C, low: -3 °C": more pairs after a comma or semicolon on the same line. */
function splitInline(pair: Pair): Pair[] {
  const parts = pair.value.split(/[,;]\s+(?=\p{L}[\p{L} ]{0,20}:\s)/u);
  if (parts.length === 1) return [pair];
  const out: Pair[] = [{ ...pair, value: parts[0]!.trim() }];
  let offset = pair.valueStart;
  for (const part of parts.slice(1)) {
    offset = pair.valueStart + pair.value.indexOf(part, offset - pair.valueStart);
    const m = /^(\p{L}[\p{L} ]{0,20}):\s+(.*\S)\s*$/u.exec(part);
    if (!m) continue;
    const value = m[2]!;
    out.push({
      label: labelWords(m[1]!),
      rawLabel: m[1]!,
      value,
      valueStart: offset + part.lastIndexOf(value),
      line: pair.line,
    });
  }
  return out;
}

/** A row of a two-column table (`| Weight | 1.38 kg |`) is a pair too. */
function tablePair(line: Line, index: number): Pair | undefined {
  const cells = tableCells(line.text);
  if (!cells || cells.length !== 2 || isSeparator(cells)) return undefined;
  const [rawLabel, value] = cells as [string, string];
  const label = labelWords(rawLabel);
  if (label.length === 0 || value.length === 0) return undefined;
  return { label, rawLabel, value, valueStart: line.start + line.text.lastIndexOf(value), line: index };
}

function tableCells(text: string): string[] | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('|')) return undefined;
  const cells = trimmed.split('|').map((c) => c.trim());
  if (cells[0] === '') cells.shift();
  if (cells[cells.length - 1] === '') cells.pop();
  return cells;
}

function isSeparator(cells: readonly string[]): boolean {
  return cells.every((c) => /^:?-{2,}:?$/.test(c));
}

function readTables(lines: readonly Line[]): Table[] {
  const tables: Table[] = [];
  let current: { line: number; rows: string[][] } | undefined;
  lines.forEach((line, i) => {
    const cells = tableCells(line.text);
    if (!cells) {
      if (current) tables.push(toTable(current));
      current = undefined;
      return;
    }
    if (isSeparator(cells)) return;
    if (!current) current = { line: i, rows: [] };
    current.rows.push(cells);
  });
  if (current) tables.push(toTable(current));
  return tables.filter((t) => t.rows.length > 0);
}

function toTable(raw: { line: number; rows: string[][] }): Table {
  const [header = [], ...rows] = raw.rows;
  return { header, rows, line: raw.line };
}

function readSections(lines: readonly Line[]): Section[] {
  const sections: Section[] = [];
  lines.forEach((line, i) => {
    const title = sectionTitle(lines, i);
    if (title === undefined) return;
    let to = i + 1;
    while (to < lines.length && lines[to]!.text.trim() !== '' && sectionTitle(lines, to) === undefined) to++;
    if (to > i + 1) sections.push({ title, label: labelWords(title), line: i, from: i + 1, to });
  });
  return sections;
}

/** The title if line `i` opens a section. */
function sectionTitle(lines: readonly Line[], i: number): string | undefined {
  const text = lines[i]!.text;
  const heading = HEADING.exec(text);
  if (heading) return heading[1]!;
  const next = lines[i + 1]?.text ?? '';
  if (next.trim() === '') return undefined;
  const emptyPair = /^\s*(?:\*\*)?([^:|]{1,60}?)(?:\*\*)?\s*:\s*$/u.exec(text);
  if (emptyPair) return emptyPair[1]!.trim();
  // A short line without sentence punctuation, followed by pairs or bullets ("Provider", "Decisions").
  const words = text.trim().split(/\s+/);
  const titleLike = text.trim().length > 0 && words.length <= 4 && !/[.:;,!?|]/.test(text) && !BULLET.test(text);
  const opensBlock = BULLET.test(next) || PAIR.test(next);
  return titleLike && opensBlock && (i === 0 || lines[i - 1]!.text.trim() === '') ? text.trim() : undefined;
}

/** Bullet items in lines [from, to), stopping at the first line that is not a bullet. */
export function bulletItems(model: DocumentModel, from: number, to = model.lines.length): string[] {
  const items: string[] = [];
  for (let i = from; i < to; i++) {
    const m = BULLET.exec(model.lines[i]!.text);
    if (!m) break;
    items.push(m[1]!);
  }
  return items;
}
