import { findDates } from '../core/dates.js';
import { escapePointer } from '../core/schema-walk.js';
import type { ExtractionProvider, JsonSchemaObject, ProviderAnswer } from '../types.js';
import { bulletItems, readDocument, type DocumentModel, type Pair } from './document.js';
import { fieldSpecs, type FieldKind, type FieldSpec } from './fields.js';
import { labelScore, labelWords, wordsMatch } from './labels.js';
import { Prose } from './prose.js';
import { fieldsByMeaning } from './clauses.js';
import { gradeByEvidence } from './evidence.js';
import { dropInvalid } from './prune.js';
import { rangeEnd, readList, readValue, splitList, type Read, type ReadContext } from './values.js';

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

export function extractHeuristically(schema: JsonSchemaObject, sourceText: string): ProviderAnswer {
  const run = new Run(readDocument(sourceText), { monthFirst: findDates(sourceText).some((d) => d.monthFirst) });
  const fields = fieldSpecs(schema);
  const data = run.object(fields, run.model.pairs, { root: true });
  const found = fieldsByMeaning(data, schema, sourceText, run.confidences);
  const valid = dropInvalid(gradeByEvidence(found, schema, sourceText, run.confidences), schema, run.confidences);
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
  /** Step 4, for what steps 1–3 did not find (prose.ts). */
  private readonly prose: Prose;

  constructor(
    readonly model: DocumentModel,
    private readonly context: ReadContext,
  ) {
    this.prose = new Prose(model, context, this.used);
  }

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
        const found = this.prose.find(field, fields);
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
