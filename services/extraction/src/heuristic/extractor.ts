import { findDates } from '../core/dates.js';
import { labelPolarity } from '../core/grounding.js';
import { findNumbers } from '../core/numbers.js';
import { compileHere } from '../core/schema-guard.js';
import { escapePointer, isObject, unescapePointer } from '../core/schema-walk.js';
import { indexOfWords, normalise, splitIdentifier, words } from '../core/text.js';
import type { ExtractionProvider, JsonSchemaObject, ProviderAnswer } from '../types.js';
import { bulletItems, readDocument, type DocumentModel, type Pair } from './document.js';
import { fieldSpecs, type FieldKind, type FieldSpec } from './fields.js';
import { contextScore, GENERIC_WORDS, labelScore, labelWords, wordsMatch } from './labels.js';
import {
  EMAIL,
  numberValue,
  rangeEnd,
  readEnum,
  readList,
  readString,
  readValue,
  splitList,
  unitFollows,
  URL_PATTERN,
  type Read,
  type ReadContext,
} from './values.js';

/**
 * The offline extractor: deterministic, no model, for typed fields. Per field of the schema it
 * looks, in this order, for
 *
 * 1. a "label: value" line (or a two-column table row) whose label names the field (its name,
 *    title or short description, word by word with synonyms; each line serves one field, unless
 *    the fields want different kinds of value or different ends of a range), read as the field's
 *    type: the first date, number (unit-aware: `weightKg` prefers "… kg"), email, URL, yes/no, enum
 *    value, or the text; lists from "A, B and C" or from the bullets under the label or a heading;
 * 2. for nested objects, a section titled like the object ("Provider" then its lines), else labels
 *    naming both ("Vendor email");
 * 3. for lists of objects, a table whose column headers name the item's fields;
 * 4. in prose: a date, number, email or URL whose sentence names the field next to it ("the next
 *    review is scheduled for July 1, 2024"); the only date/email/URL of the document when the
 *    schema has exactly one field of that kind; the only enum value the text mentions; a boolean
 *    from the words around the field's name ("no registration is required"); a title from the
 *    first line, a name from a salutation, a proper name right after the field's name ("our
 *    speaker is Dr. Helen Okoye").
 *
 * Nothing found → the field is left out (or null if it is required and may be null). Its own
 * confidence per field (`fieldConfidences`) says how it found the value: 0.75–0.9 for a labelled
 * line by how well the label matched, 0.8 for table cells and bulleted lists, 0.6–0.7 for prose
 * next to the field's name, 0.5 for "the only one in the document" and for booleans read from a
 * bare mention. The scorer then takes the minimum with the grounding weight.
 */

export const HEURISTIC_MODEL = 'heuristic-v1';

export function createHeuristicProvider(): ExtractionProvider {
  return {
    name: 'heuristic',
    async extract(request, options = {}) {
      options.signal?.throwIfAborted();
      return extractHeuristically(request.schema, request.sourceText);
    },
  };
}

const LABEL_THRESHOLD = 0.5;
const CONTEXT_THRESHOLD = 0.5;

export function extractHeuristically(schema: JsonSchemaObject, sourceText: string): ProviderAnswer {
  const run = new Run(readDocument(sourceText), { monthFirst: findDates(sourceText).some((d) => d.monthFirst) });
  const fields = fieldSpecs(schema);
  const data = run.object(fields, run.model.pairs, { root: true });
  const valid = dropInvalid(data, schema, run.confidences);
  return { data: valid, model: HEURISTIC_MODEL, fieldConfidences: run.confidences };
}

interface Candidate {
  field: FieldSpec;
  pair: Pair;
  score: number;
  read: Read;
}

class Run {
  readonly confidences: Record<string, number> = {};
  /** Offsets of values already taken, so two fields do not take the same mention. */
  private readonly used = new Set<number>();
  private titleUsed = false;
  private dates?: ReturnType<typeof findDates>;
  private numbers?: ReturnType<typeof findNumbers>;

  constructor(
    readonly model: DocumentModel,
    private readonly context: ReadContext,
  ) {}

  object(
    fields: readonly FieldSpec[],
    pairs: readonly Pair[],
    options: { root: boolean; prefix?: string[] },
  ): Record<string, unknown> {
    const data: Record<string, unknown> = {};
    const simple = fields.filter((f) => f.kind !== 'object' && f.kind !== 'objectList');
    this.fromPairs(simple, pairs, options.prefix, data);
    for (const field of fields.filter((f) => f.kind === 'object')) {
      const value = this.nested(field, pairs);
      if (Object.keys(value).length > 0) data[field.key] = value;
    }
    for (const field of fields.filter((f) => f.kind === 'objectList')) {
      const rows = this.fromTables(field);
      if (rows.length > 0) data[field.key] = rows;
    }
    if (options.root) {
      for (const field of simple) {
        if (field.key in data) continue;
        const found = this.fromProse(field, fields);
        if (found) this.set(data, field, found.value, found.confidence);
      }
    }
    for (const field of fields) {
      if (!(field.key in data) && field.required && field.nullable) this.set(data, field, null, 0.5);
    }
    return data;
  }

  private set(data: Record<string, unknown>, field: FieldSpec, value: unknown, confidence: number): void {
    data[field.key] = value;
    this.confidences[field.path] = Math.round(confidence * 1000) / 1000;
  }

  /** Step 1: labelled lines, best label matches first, each line for one field (see the rule above). */
  private fromPairs(
    fields: readonly FieldSpec[],
    pairs: readonly Pair[],
    prefix: string[] | undefined,
    data: Record<string, unknown>,
  ): void {
    const candidates: Candidate[] = [];
    const sources = [...pairs, ...this.sectionPairs(fields)];
    fields.forEach((field) => {
      const variants = prefix ? field.variants.map((v) => [...prefix, ...v]) : field.variants;
      for (const pair of sources) {
        // Without its own section, a nested field takes only lines that also name its parent ("Vendor email").
        if (prefix && !pair.label.some((w) => prefix.some((p) => wordsMatch(w, p)))) continue;
        const score = Math.max(...variants.map((v) => labelScore(pair.label, v)));
        if (score < LABEL_THRESHOLD) continue;
        const read = this.readPair(pair, field);
        if (read) candidates.push({ field, pair, score, read });
      }
    });
    candidates.sort(
      (a, b) => b.score - a.score || fields.indexOf(a.field) - fields.indexOf(b.field) || a.pair.line - b.pair.line,
    );
    const users = new Map<Pair, FieldSpec[]>();
    for (const c of candidates) {
      if (c.field.key in data) continue;
      const others = users.get(c.pair) ?? [];
      if (!others.every((o) => sharable(o, c.field))) continue;
      users.set(c.pair, [...others, c.field]);
      if (c.read.start !== undefined) this.used.add(c.pair.valueStart + c.read.start);
      this.set(data, c.field, c.read.value, c.field.kind === 'list' && c.pair.value === '' ? 0.8 : 0.6 + 0.3 * c.score);
    }
  }

  /** Headings and "Label:" lines without a value, as pairs whose value is the bullet list under them. */
  private sectionPairs(fields: readonly FieldSpec[]): Pair[] {
    if (!fields.some((f) => f.kind === 'list')) return [];
    return this.model.sections
      .filter((s) => !this.model.pairs.some((p) => p.line === s.line))
      .map((s) => ({
        label: s.label,
        rawLabel: s.title,
        value: '',
        valueStart: this.model.lines[s.line]!.start,
        line: s.line,
      }));
  }

  private readPair(pair: Pair, field: FieldSpec): Read | undefined {
    if (field.kind === 'list') {
      const items = pair.value === '' ? bulletItems(this.model, pair.line + 1) : splitList(pair.value);
      const values = readList(items, field.item!, this.context);
      return values.length > 0 ? { value: values } : undefined;
    }
    return pair.value === '' ? undefined : readValue(pair.value, field, this.context);
  }

  /** Step 2: a nested object from the section titled like it, else from labels naming both. */
  private nested(field: FieldSpec, pairs: readonly Pair[]): Record<string, unknown> {
    const children = field.children ?? [];
    let best: { index: number; score: number } | undefined;
    this.model.sections.forEach((section, index) => {
      const score = Math.max(...field.variants.map((v) => labelScore(section.label, v)));
      if (score >= LABEL_THRESHOLD && (!best || score > best.score)) best = { index, score };
    });
    if (best) {
      const inSection = pairs.filter((p) => p.section === best!.index);
      return this.object(children, inSection, { root: false });
    }
    return this.object(children, pairs, { root: false, prefix: field.variants[0] ?? [] });
  }

  /** Step 3: rows of the table whose headers name most of the item's fields. */
  private fromTables(field: FieldSpec): Record<string, unknown>[] {
    const children = (field.children ?? []).filter(
      (c) => c.kind !== 'object' && c.kind !== 'objectList' && c.kind !== 'list',
    );
    let best: { columns: Map<number, FieldSpec>; rows: string[][] } | undefined;
    for (const table of this.model.tables) {
      const columns = new Map<number, FieldSpec>();
      const scored = table.header.flatMap((cell, column) =>
        children.map((child) => ({
          column,
          child,
          score: Math.max(...child.variants.map((v) => labelScore(labelWords(cell), v))),
        })),
      );
      scored.sort((a, b) => b.score - a.score || a.column - b.column);
      for (const { column, child, score } of scored) {
        if (score < LABEL_THRESHOLD || columns.has(column) || [...columns.values()].includes(child)) continue;
        columns.set(column, child);
      }
      if (columns.size >= Math.min(2, children.length) && (!best || columns.size > best.columns.size))
        best = { columns, rows: table.rows };
    }
    if (!best) return [];
    const rows = best.rows.map((cells, i) => {
      const item: Record<string, unknown> = {};
      for (const [column, child] of best!.columns) {
        const read = readValue(cells[column] ?? '', child, this.context);
        if (read) {
          item[child.key] = read.value;
          this.confidences[`${field.path}/${i}/${escapePointer(child.key)}`] = 0.8;
        }
      }
      return item;
    });
    return rows.filter((r) => Object.keys(r).length > 0);
  }

  /** Step 4: prose. */
  private fromProse(
    field: FieldSpec,
    siblings: readonly FieldSpec[],
  ): { value: unknown; confidence: number } | undefined {
    switch (field.kind) {
      case 'date':
      case 'number':
      case 'integer':
      case 'email':
      case 'url':
        return this.nearLabel(field, siblings);
      case 'enum':
        return this.onlyEnumValue(field);
      case 'boolean':
        return this.booleanNearLabel(field);
      case 'string':
        return (
          this.salutation(field) ?? this.title(field) ?? this.codeAfterLabel(field) ?? this.properNameAfterLabel(field)
        );
      case 'list':
        return this.listAfterLabel(field);
      default:
        return undefined;
    }
  }

  private nearLabel(
    field: FieldSpec,
    siblings: readonly FieldSpec[],
  ): { value: unknown; confidence: number } | undefined {
    const mentions = this.mentions(field).filter((m) => !this.used.has(m.start));
    const names = proseWords(field);
    let best: { mention: Mention; score: number } | undefined;
    for (const mention of mentions) {
      const { before, after, own } = this.contextOf(mention.start, mention.end);
      const nearestFirst = [...own, ...[...before].reverse()];
      const near = Math.max(...names.map((n) => contextScore(nearestFirst, n)));
      const far = 0.9 * Math.max(...names.map((n) => contextScore(after, n)));
      let score = Math.max(near, far);
      if (score >= CONTEXT_THRESHOLD && mention.unitMatch) score += 0.25;
      if (score >= CONTEXT_THRESHOLD && (!best || score > best.score)) best = { mention, score };
    }
    if (best) {
      this.used.add(best.mention.start);
      return { value: best.mention.value, confidence: 0.7 };
    }
    // The only one of its kind, for the only field of its kind.
    if (field.kind === 'number' || field.kind === 'integer') return undefined;
    const sameKind = siblings.filter((f) => f.kind === field.kind);
    const distinct = new Set(mentions.map((m) => String(m.value)));
    if (sameKind.length !== 1 || distinct.size !== 1) return undefined;
    this.used.add(mentions[0]!.start);
    return { value: mentions[0]!.value, confidence: 0.5 };
  }

  private mentions(field: FieldSpec): Mention[] {
    const text = this.model.text;
    switch (field.kind) {
      case 'date': {
        const end = rangeEnd(field) === 'end';
        return (this.dates ??= findDates(text))
          .filter((d) => !d.rangePart || d.rangePart === (end ? 'end' : 'start'))
          .map((d) => ({
            value: d.ambiguous && this.context.monthFirst ? d.alternative! : d.iso,
            start: d.start,
            end: d.end,
            unitMatch: false,
          }));
      }
      case 'number':
      case 'integer': {
        const dates = (this.dates ??= findDates(text));
        return (this.numbers ??= findNumbers(text))
          .filter((n) => !dates.some((d) => d.start <= n.start && n.end <= d.end))
          .filter((n) => field.kind === 'number' || Number.isInteger(n.value))
          .map((n) => ({
            value: numberValue(n, field),
            start: n.start,
            end: n.end,
            unitMatch: field.units.some((u) => unitFollows(text, n, u)),
          }));
      }
      case 'email':
      case 'url':
        return [...text.matchAll(field.kind === 'email' ? EMAIL : URL_PATTERN)].map((m) => {
          const value = m[0].replace(/[.,;:!?]+$/, '');
          return { value, start: m.index, end: m.index + value.length, unitMatch: false };
        });
      default:
        return [];
    }
  }

  /** Words before (up to 6) and after (up to 4) a span, within its clause (sentence, up to a comma or semicolon), and the span's own words. */
  private contextOf(start: number, end: number): { before: string[]; after: string[]; own: string[] } {
    const text = this.model.text;
    let from = start;
    while (from > 0 && !/[\n,;]/.test(text[from - 1]!) && !/[.!?]\s/.test(text.slice(from - 2, from))) from--;
    let to = end;
    while (to < text.length && !/[\n,;]/.test(text[to]!) && !/^[.!?](\s|$)/.test(text.slice(to, to + 2))) to++;
    const strip = (ws: string[]) => ws.filter((w) => !/^\d+$/.test(w));
    return {
      before: strip(labelWords(text.slice(from, start))).slice(-6),
      after: strip(labelWords(text.slice(end, to))).slice(0, 4),
      own: strip(words(text.slice(start, end))),
    };
  }

  private onlyEnumValue(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const norm = normalise(this.model.text);
    const named = (field.enumValues ?? []).filter((v) =>
      [normalise(v), splitIdentifier(v)].some((variant) => indexOfWords(norm, variant) >= 0),
    );
    if (named.length === 1) return { value: named[0], confidence: 0.6 };
    if (named.length > 1) return undefined;
    const read = readEnum(this.model.text, field);
    return read ? { value: read.value, confidence: 0.5 } : undefined;
  }

  private booleanNearLabel(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const names = proseWords(field)[0] ?? [];
    const phrases = [names.join(' '), names[0] ?? ''].filter((p) => p.length >= 3);
    for (const phrase of new Set(phrases)) {
      const evidence = labelPolarity(this.model.text, [phrase]);
      const explicit = evidence.find((e) => e.polarity !== 'mention');
      if (explicit) return { value: explicit.polarity === 'true', confidence: 0.75 };
      if (evidence.length > 0) return { value: true, confidence: 0.5 };
    }
    return undefined;
  }

  /** "Dear Mr. Tanaka," for a person's name field (customer, guest, recipient…). */
  private salutation(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const name = field.variants[0] ?? [];
    if (!name.includes('name') || !name.some((w) => PERSON_ROLES.has(w))) return undefined;
    for (const line of this.model.lines) {
      const m = /^\s*(?:dear|hello|hi|hey)\s+([^,!:]{2,60}?)\s*[,!:]?\s*$/i.exec(line.text);
      if (m) return { value: readString(m[1]!)?.value, confidence: 0.6 };
    }
    return undefined;
  }

  /** The first line as a title, for the first field named title/headline/name/subject. */
  private title(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const name = field.variants[0] ?? [];
    const last = name[name.length - 1];
    if (this.titleUsed || !last || !TITLE_WORDS.has(last) || name.some((w) => PERSON_ROLES.has(w))) return undefined;
    const index = this.model.lines.findIndex((l) => l.text.trim() !== '');
    const line = this.model.lines[index];
    if (!line || this.model.pairs.some((p) => p.line === index) || this.model.tables.some((t) => t.line === index))
      return undefined;
    const text = line.text.replace(/^\s*#+\s*/, '').trim();
    if (text.split(/\s+/).length > 12 || /[.,!?:;]$/.test(text) || /^(?:dear|hello|hi)\b/i.test(text)) return undefined;
    this.titleUsed = true;
    return { value: text, confidence: 0.6 };
  }

  /** "Ticket #48213", "order no. 58213", "arXiv:2401.01234": a code with a digit right after the field's name, for identifier-like fields. */
  private codeAfterLabel(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const name = field.variants[0] ?? [];
    if (!name.some((w) => CODE_WORDS.has(w))) return undefined;
    const names = proseWords(field);
    // The code is read in a lookahead so that a code that is itself a word does not hide the next label.
    const pattern = /([\p{L}]+)(?=\s*(?:#|no\.|number|:)\s*([\p{L}\p{N}][\p{L}\p{N}./-]*))/giu;
    for (const m of this.model.text.matchAll(pattern)) {
      const code = m[2]!.replace(/[.]+$/, '');
      if (!/\d/.test(code) || !names.some((n) => n.some((w) => wordsMatch(normalise(m[1]!), w)))) continue;
      return { value: code, confidence: 0.6 };
    }
    return undefined;
  }

  /** "our speaker is Dr. Helen Okoye", "the agency AEMET": the run of capitalised words right after the field's name. */
  private properNameAfterLabel(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const names = proseWords(field);
    const tokens = [...this.model.text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’.&-]*/gu)].map((m) => ({
      word: m[0],
      start: m.index,
      end: m.index + m[0].length,
    }));
    for (let i = 0; i < tokens.length; i++) {
      const word = normalise(tokens[i]!.word);
      if (!names.some((n) => n.length > 0 && wordsMatch(word, n[n.length - 1]!))) continue;
      let j = i + 1;
      if (j < tokens.length && COPULAS.has(tokens[j]!.word.toLowerCase())) j++;
      if (j < tokens.length && ARTICLES.has(tokens[j]!.word.toLowerCase())) j++;
      const from = j;
      while (
        j < tokens.length &&
        isCapitalised(tokens[j]!.word) &&
        !this.breakBetween(tokens[j - 1]!.end, tokens[j]!.start)
      ) {
        j++;
        if (/\.$/.test(tokens[j - 1]!.word) && !ABBREVIATION.test(tokens[j - 1]!.word)) break; // a sentence ends here
      }
      if (j > from && !this.breakBetween(tokens[i]!.end, tokens[from]!.start)) {
        const value = readString(this.model.text.slice(tokens[from]!.start, tokens[j - 1]!.end))?.value;
        if (value) return { value, confidence: 0.5 };
      }
    }
    return undefined;
  }

  /** A clause or sentence boundary between two offsets. */
  private breakBetween(from: number, to: number): boolean {
    const gap = this.model.text.slice(from, to);
    return (
      /[,;:\n()]/.test(gap) ||
      (/\.\s/.test(gap) &&
        !/\b(?:dr|mr|mrs|ms|prof|st)\.\s*$/i.test(this.model.text.slice(Math.max(0, from - 5), from + 1)))
    );
  }

  /** "Present were A, B and C": the items after the field's name and a verb or colon, in one sentence. */
  private listAfterLabel(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const names = proseWords(field);
    const pattern = /([\p{L}]+)\s+(?:were|are|include|includes|including|was)\s+([^.\n]+)/giu;
    for (const m of this.model.text.matchAll(pattern)) {
      const word = normalise(m[1]!);
      if (!names.some((n) => n.some((w) => wordsMatch(word, w)))) continue;
      const items = readList(splitList(m[2]!), field.item!, this.context);
      if (items.length >= 2) return { value: items, confidence: 0.6 };
    }
    return undefined;
  }
}

interface Mention {
  value: unknown;
  start: number;
  end: number;
  unitMatch: boolean;
}

const PERSON_ROLES = new Set([
  'customer',
  'guest',
  'recipient',
  'client',
  'addressee',
  'passenger',
  'patient',
  'applicant',
]);
const TITLE_WORDS = new Set(['title', 'headline', 'name', 'subject', 'heading']);
const CODE_WORDS = new Set(['id', 'number', 'no', 'code', 'reference', 'ref']);
const COPULAS = new Set(['is', 'was', 'are', 'were', 'will', 'be']);
const ABBREVIATION = /^(?:dr|mr|mrs|ms|prof|st|jr|sr|[a-z])\.$/i;
const ARTICLES = new Set(['a', 'an', 'the']);

function isCapitalised(word: string): boolean {
  return /^[\p{Lu}]/u.test(word);
}

/** The field's name words for prose, without the words that only say the value's kind ("date", "number"). */
function proseWords(field: FieldSpec): string[][] {
  return field.variants.map((v) => {
    const specific = v.filter((w) => !GENERIC_WORDS.has(w));
    return specific.length > 0 ? specific : v;
  });
}

/** Two fields may take their values from the same line if they want different kinds of value or different ends of a range. */
function sharable(a: FieldSpec, b: FieldSpec): boolean {
  if (kindGroup(a.kind) !== kindGroup(b.kind)) return true;
  const ra = rangeEnd(a);
  const rb = rangeEnd(b);
  return ra !== undefined && rb !== undefined && ra !== rb;
}

function kindGroup(kind: FieldKind): string {
  return kind === 'integer' ? 'number' : kind;
}

/**
 * The extracted data with every value the schema rejects removed (a pattern it does not match, a
 * number out of range…), so what is returned validates, except for required fields that could not
 * be found.
 */
function dropInvalid(
  data: Record<string, unknown>,
  schema: JsonSchemaObject,
  confidences: Record<string, number>,
): Record<string, unknown> {
  const validate = compileHere(schema);
  for (let round = 0; round < 10 && !validate(data); round++) {
    const paths = (validate.errors ?? [])
      .filter((e) => e.keyword !== 'required' && e.instancePath !== '')
      .map((e) => e.instancePath);
    if (paths.length === 0) break;
    // Deepest and last items first, so removing an array item does not move one still to remove.
    for (const path of [...new Set(paths)].sort((a, b) => b.localeCompare(a, 'en', { numeric: true })))
      removeAt(data, path, confidences);
  }
  return data;
}

/** Remove the value at a JSON Pointer, and its confidences (renumbering those of later array items). */
function removeAt(root: Record<string, unknown>, pointer: string, confidences: Record<string, number>): void {
  const tokens = pointer.split('/').slice(1).map(unescapePointer);
  let parent: unknown = root;
  for (const token of tokens.slice(0, -1))
    parent = isObject(parent) || Array.isArray(parent) ? (parent as Record<string, unknown>)[token] : undefined;
  const last = tokens[tokens.length - 1]!;
  for (const key of Object.keys(confidences))
    if (key === pointer || key.startsWith(`${pointer}/`)) delete confidences[key];
  if (isObject(parent)) {
    delete parent[last];
    return;
  }
  if (!Array.isArray(parent)) return;
  const index = Number(last);
  parent.splice(index, 1);
  const base = pointer.slice(0, pointer.lastIndexOf('/'));
  for (const key of Object.keys(confidences).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))) {
    if (!key.startsWith(`${base}/`)) continue;
    const [item = '', ...rest] = key.slice(base.length + 1).split('/');
    if (!/^\d+$/.test(item) || Number(item) <= index) continue;
    confidences[[`${base}/${Number(item) - 1}`, ...rest].join('/')] = confidences[key]!;
    delete confidences[key];
  }
}
