import { scoreFields } from '../core/confidence.js';
import { sameNumber } from '../core/numbers.js';
import { guardSchema } from '../schema/guard-schema.js';
import { escapePointer, isObject } from '../core/schema-walk.js';
import { normalise } from '../core/text.js';
import { createHeuristicProvider } from '../heuristic/extractor.js';
import { fieldSpecs, type FieldSpec } from '../heuristic/fields.js';
import type { ExtractionProvider } from '../types.js';
import type { CorpusDocument } from './corpus.js';

/**
 * Field-level precision and recall of an extraction provider on the labelled corpus. Each leaf
 * field is compared with the expected value (strings ignoring case, punctuation and diacritics;
 * numbers numerically; dates as ISO days); a wrong value counts as a false positive AND a false
 * negative; a value for a field the document does not state is a false positive; a missed one a
 * false negative. Lists count per item (as multisets), lists of objects per item field.
 */

export type FieldType = 'date' | 'number' | 'string' | 'email' | 'url' | 'enum' | 'boolean' | 'list';
export const FIELD_TYPES: readonly FieldType[] = [
  'date',
  'number',
  'string',
  'email',
  'url',
  'enum',
  'boolean',
  'list',
];

export interface Metrics {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface FieldOutcome {
  document: string;
  path: string;
  type: FieldType;
  expected: unknown;
  predicted: unknown;
  /** The scorer's confidence for the predicted value (absent when nothing was predicted). */
  confidence?: number;
}

export interface EvaluationReport {
  documents: number;
  overall: Metrics;
  byType: Record<FieldType, Metrics>;
  /** The same over the held-out documents only (not used to tune the extractor). */
  heldOut: { documents: number; overall: Metrics; byType: Record<FieldType, Metrics> };
  /** Documents whose extracted data validates against their schema. */
  validDocuments: number;
  /** Mean scorer confidence of correct and of wrong predicted values: an honest scorer keeps them apart. */
  meanConfidence: { correct: number; wrong: number };
  /** Every field that was not exactly right. */
  mistakes: FieldOutcome[];
}

/** Runs `provider` (the heuristic by default) on every document of `corpus` (see loadHeuristicCorpus). */
export async function evaluateHeuristic(
  corpus: readonly CorpusDocument[],
  provider: ExtractionProvider = createHeuristicProvider(),
): Promise<EvaluationReport> {
  const counts = emptyCounts();
  const heldOutCounts = emptyCounts();
  const mistakes: FieldOutcome[] = [];
  const correctConfidences: number[] = [];
  const wrongConfidences: number[] = [];
  let validDocuments = 0;
  for (const document of corpus) {
    const guarded = await guardSchema(document.schema);
    const answer = await provider.extract({ schema: document.schema, sourceText: document.text });
    const validation = guarded.validate(answer.data);
    if (validation.valid) validDocuments++;
    const scores = scoreFields(
      answer.data,
      document.schema,
      document.text,
      answer.fieldConfidences,
      validation.valid ? [] : validation.paths,
    );
    const outcomes = compare(
      fieldSpecs(document.schema),
      document.expected,
      isObject(answer.data) ? answer.data : {},
      '',
    );
    for (const outcome of outcomes) {
      const confidence = scores.fieldConfidences[outcome.path];
      for (const c of document.heldOut ? [counts[outcome.type], heldOutCounts[outcome.type]] : [counts[outcome.type]]) {
        c.tp += outcome.tp;
        c.fp += outcome.fp;
        c.fn += outcome.fn;
      }
      if (outcome.predicted !== undefined && confidence !== undefined)
        (outcome.fp === 0 ? correctConfidences : wrongConfidences).push(confidence);
      if (outcome.fp > 0 || outcome.fn > 0) {
        mistakes.push({
          document: document.id,
          path: outcome.path,
          type: outcome.type,
          expected: outcome.expected,
          predicted: outcome.predicted,
          ...(confidence !== undefined ? { confidence } : {}),
        });
      }
    }
  }
  return {
    documents: corpus.length,
    ...summary(counts),
    heldOut: { documents: corpus.filter((d) => d.heldOut).length, ...summary(heldOutCounts) },
    validDocuments,
    meanConfidence: { correct: round(mean(correctConfidences)), wrong: round(mean(wrongConfidences)) },
    mistakes,
  };
}

type Counts = Record<FieldType, { tp: number; fp: number; fn: number }>;

function emptyCounts(): Counts {
  return Object.fromEntries(FIELD_TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }])) as Counts;
}

function summary(counts: Counts): { overall: Metrics; byType: Record<FieldType, Metrics> } {
  const total = FIELD_TYPES.reduce(
    (sum, t) => ({ tp: sum.tp + counts[t].tp, fp: sum.fp + counts[t].fp, fn: sum.fn + counts[t].fn }),
    { tp: 0, fp: 0, fn: 0 },
  );
  return {
    overall: metrics(total),
    byType: Object.fromEntries(FIELD_TYPES.map((t) => [t, metrics(counts[t])])) as Record<FieldType, Metrics>,
  };
}

interface Outcome {
  path: string;
  type: FieldType;
  expected: unknown;
  predicted: unknown;
  tp: number;
  fp: number;
  fn: number;
}

function compare(
  fields: readonly FieldSpec[],
  expected: Record<string, unknown>,
  predicted: Record<string, unknown>,
  base: string,
): Outcome[] {
  const out: Outcome[] = [];
  for (const field of fields) {
    const path = `${base}/${escapePointer(field.key)}`;
    const e = present(expected[field.key]);
    const p = present(predicted[field.key]);
    if (field.kind === 'object') {
      out.push(...compare(field.children ?? [], isObject(e) ? e : {}, isObject(p) ? p : {}, path));
      continue;
    }
    if (field.kind === 'objectList') {
      const es = Array.isArray(e) ? e : [];
      const ps = Array.isArray(p) ? p : [];
      for (let i = 0; i < Math.max(es.length, ps.length); i++) {
        out.push(
          ...compare(field.children ?? [], isObject(es[i]) ? es[i] : {}, isObject(ps[i]) ? ps[i] : {}, `${path}/${i}`),
        );
      }
      continue;
    }
    const type = typeOf(field);
    if (e === undefined && p === undefined) continue;
    if (type === 'list') {
      const es = Array.isArray(e) ? e : [];
      const ps = Array.isArray(p) ? p : [];
      const left = [...es];
      let tp = 0;
      for (const item of ps) {
        const at = left.findIndex((x) => same(field.item ? typeOf(field.item) : 'string', x, item));
        if (at >= 0) {
          left.splice(at, 1);
          tp++;
        }
      }
      out.push({ path, type, expected: e, predicted: p, tp, fp: ps.length - tp, fn: left.length });
      continue;
    }
    if (e === undefined) out.push({ path, type, expected: e, predicted: p, tp: 0, fp: 1, fn: 0 });
    else if (p === undefined) out.push({ path, type, expected: e, predicted: p, tp: 0, fp: 0, fn: 1 });
    else if (same(type, e, p)) out.push({ path, type, expected: e, predicted: p, tp: 1, fp: 0, fn: 0 });
    else out.push({ path, type, expected: e, predicted: p, tp: 0, fp: 1, fn: 1 });
  }
  return out;
}

function present(value: unknown): unknown {
  return value === null || value === '' || (Array.isArray(value) && value.length === 0) ? undefined : value;
}

function typeOf(field: FieldSpec): FieldType {
  switch (field.kind) {
    case 'date':
    case 'datetime':
      return 'date';
    case 'integer':
    case 'number':
      return 'number';
    case 'email':
    case 'url':
    case 'enum':
    case 'boolean':
    case 'list':
      return field.kind;
    default:
      return 'string';
  }
}

function same(type: FieldType, expected: unknown, predicted: unknown): boolean {
  switch (type) {
    case 'number':
      return typeof expected === 'number' && typeof predicted === 'number' && sameNumber(expected, predicted);
    case 'date':
      return typeof predicted === 'string' && predicted.slice(0, 10) === String(expected).slice(0, 10);
    case 'email':
    case 'url':
      return (
        typeof predicted === 'string' &&
        predicted.trim().toLowerCase().replace(/\/$/, '') === String(expected).trim().toLowerCase().replace(/\/$/, '')
      );
    case 'enum':
    case 'boolean':
      return expected === predicted;
    default:
      return typeof predicted === 'string' && normalise(predicted) === normalise(String(expected));
  }
}

function metrics(c: { tp: number; fp: number; fn: number }): Metrics {
  const precision = c.tp + c.fp === 0 ? 1 : c.tp / (c.tp + c.fp);
  const recall = c.tp + c.fn === 0 ? 1 : c.tp / (c.tp + c.fn);
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { ...c, precision: round(precision), recall: round(recall), f1: round(f1) };
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** The report as a plain-text table (for `npm run bench`). */
export function formatEvaluation(report: EvaluationReport): string {
  const row = (name: string, m: Metrics) =>
    `${name.padEnd(8)} ${String(m.tp).padStart(4)} ${String(m.fp).padStart(4)} ${String(m.fn).padStart(4)}   ${m.precision.toFixed(3)}   ${m.recall.toFixed(3)}  ${m.f1.toFixed(3)}`;
  return [
    `Heuristic extractor on ${report.documents} labelled documents (${report.validDocuments} outputs valid against their schema)`,
    'type       tp   fp   fn   precision  recall  F1',
    ...FIELD_TYPES.map((t) => row(t, report.byType[t])),
    row('overall', report.overall),
    `held out (${report.heldOut.documents} documents written after tuning, never tuned on):`,
    ...FIELD_TYPES.map((t) => row(t, report.heldOut.byType[t])),
    row('overall', report.heldOut.overall),
    `mean confidence: correct values ${report.meanConfidence.correct.toFixed(3)}, wrong values ${report.meanConfidence.wrong.toFixed(3)}`,
  ].join('\n');
}
