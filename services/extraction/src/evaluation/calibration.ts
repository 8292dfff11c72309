import { readFile } from 'node:fs/promises';
import { scoreFields } from '../core/confidence.js';
import { normalise } from '../core/text.js';
import { extractHeuristically } from '../heuristic/extractor.js';
import type { JsonSchemaObject } from '../types.js';

/**
 * Does confidence mean anything? Measured on research abstracts in prose (corpus/abstracts.json,
 * written for Quarry; `heldOut` ones never tuned on), with one schema a research client would
 * send. Two questions:
 *
 * - the offline extractor: precision and recall per field type, and how well its confidence
 *   separates its right values from its wrong ones (mean confidence of each, AUROC);
 * - grounding of an answer from the client's (or any) model: the labelled answer with planted
 *   errors — a value altered, two values swapped between fields, a value invented — scored by
 *   `scoreFields` alone; AUROC of confidence with right values as positives.
 *
 * A leaf value is the unit: each author of a list counts on its own.
 */

export const ABSTRACT_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    authors: { type: 'array', items: { type: 'string' } },
    journal: { type: 'string' },
    year: { type: 'integer' },
    sampleSize: { type: 'integer', description: 'number of participants enrolled' },
    durationWeeks: { type: 'number', description: 'treatment or follow-up duration in weeks' },
    doseMg: { type: 'number', description: 'dose in mg' },
    pValue: { type: 'number' },
    registration: { type: 'string', description: 'trial registration number (NCT…)' },
    doi: { type: 'string' },
    contactEmail: { type: 'string', format: 'email' },
  },
  additionalProperties: false,
};

/** What kind of value a field holds, for the per-type figures. */
const FIELD_KIND: Readonly<Record<string, string>> = {
  title: 'text',
  journal: 'text',
  authors: 'name list',
  year: 'year',
  sampleSize: 'count',
  durationWeeks: 'count',
  doseMg: 'measure',
  pValue: 'measure',
  registration: 'identifier',
  doi: 'identifier',
  contactEmail: 'email',
};

export interface AbstractDocument {
  id: string;
  heldOut: boolean;
  text: string;
  labels: Record<string, unknown>;
}

const ABSTRACTS = new URL('../../corpus/abstracts.json', import.meta.url);

export async function loadAbstracts(file: URL | string = ABSTRACTS): Promise<AbstractDocument[]> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as { documents: AbstractDocument[] };
  return parsed.documents;
}

/** One scored leaf value: right or wrong, with the confidence it was given. */
interface Scored {
  right: boolean;
  confidence: number;
}

export interface SeparationFigures {
  right: number;
  wrong: number;
  meanRightConfidence: number;
  meanWrongConfidence: number;
  /** Probability that a random right value scores above a random wrong one (ties count half). */
  auroc: number;
}

export interface OfflineCalibration {
  all: SeparationFigures & { precision: number; recall: number };
  heldOut: SeparationFigures & { precision: number; recall: number };
  byKind: Record<string, { precision: number; recall: number; right: number; wrong: number; missed: number }>;
}

export interface GroundingCalibration {
  all: SeparationFigures;
  heldOut: SeparationFigures;
  /** AUROC of right values against each kind of planted error alone. */
  byError: Record<PlantedError, number>;
}

export type PlantedError = 'altered' | 'swapped' | 'invented';

const same = (a: unknown, b: unknown): boolean =>
  typeof a === 'number' && typeof b === 'number'
    ? Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a))
    : typeof a === 'string' && typeof b === 'string'
      ? normalise(a) === normalise(b)
      : false;

/** The leaf values of an answer: [field, JSON Pointer, value]. */
function leaves(data: Record<string, unknown>): [string, string, unknown][] {
  return Object.entries(data).flatMap(([field, value]) =>
    Array.isArray(value)
      ? value.map((item, i): [string, string, unknown] => [field, `/${field}/${i}`, item])
      : [[field, `/${field}`, value] as [string, string, unknown]],
  );
}

function isRight(field: string, value: unknown, labels: Record<string, unknown>): boolean {
  const expected = labels[field];
  return Array.isArray(expected) ? expected.some((e) => same(e, value)) : same(expected, value);
}

function auroc(scored: readonly Scored[]): number {
  const pos = scored.filter((s) => s.right).map((s) => s.confidence);
  const neg = scored.filter((s) => !s.right).map((s) => s.confidence);
  if (pos.length === 0 || neg.length === 0) return Number.NaN;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return wins / (pos.length * neg.length);
}

function separation(scored: readonly Scored[]): SeparationFigures {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
  const right = scored.filter((s) => s.right).map((s) => s.confidence);
  const wrong = scored.filter((s) => !s.right).map((s) => s.confidence);
  return {
    right: right.length,
    wrong: wrong.length,
    meanRightConfidence: mean(right),
    meanWrongConfidence: mean(wrong),
    auroc: auroc(scored),
  };
}

const expectedCount = (labels: Record<string, unknown>) =>
  Object.values(labels).reduce<number>((n, v) => n + (Array.isArray(v) ? v.length : 1), 0);

/** The offline extractor on every abstract, its values judged against the labels. */
export function calibrateOffline(documents: readonly AbstractDocument[]): OfflineCalibration {
  const byKind: OfflineCalibration['byKind'] = {};
  const scoredAll: Scored[] = [];
  const scoredHeld: Scored[] = [];
  const counts = { all: { found: 0, expected: 0 }, heldOut: { found: 0, expected: 0 } };
  for (const document of documents) {
    const answer = extractHeuristically(ABSTRACT_SCHEMA, document.text);
    const data = answer.data as Record<string, unknown>;
    const scores = scoreFields(data, ABSTRACT_SCHEMA, document.text, answer.fieldConfidences ?? {});
    for (const [field, value] of Object.entries(document.labels)) {
      const kind = (byKind[FIELD_KIND[field]!] ??= { precision: 0, recall: 0, right: 0, wrong: 0, missed: 0 });
      const wanted = Array.isArray(value) ? value : [value];
      const got = data[field] === undefined ? [] : Array.isArray(data[field]) ? data[field] : [data[field]];
      kind.missed += wanted.filter((w) => !got.some((g) => same(w, g))).length;
    }
    for (const [field, path, value] of leaves(data)) {
      const right = isRight(field, value, document.labels);
      const kind = (byKind[FIELD_KIND[field]!] ??= { precision: 0, recall: 0, right: 0, wrong: 0, missed: 0 });
      if (right) kind.right++;
      else kind.wrong++;
      const scored = { right, confidence: scores.fieldConfidences[path] ?? 0 };
      scoredAll.push(scored);
      if (document.heldOut) scoredHeld.push(scored);
      if (right) {
        counts.all.found++;
        if (document.heldOut) counts.heldOut.found++;
      }
    }
    counts.all.expected += expectedCount(document.labels);
    if (document.heldOut) counts.heldOut.expected += expectedCount(document.labels);
  }
  for (const kind of Object.values(byKind)) {
    kind.precision = kind.right / Math.max(1, kind.right + kind.wrong);
    kind.recall = kind.right / Math.max(1, kind.right + kind.missed);
  }
  const figures = (scored: Scored[], c: { found: number; expected: number }) => ({
    ...separation(scored),
    precision: scored.filter((s) => s.right).length / Math.max(1, scored.length),
    recall: c.found / Math.max(1, c.expected),
  });
  return { all: figures(scoredAll, counts.all), heldOut: figures(scoredHeld, counts.heldOut), byKind };
}

/** A value near `value` that the text does not hold: a digit changed, or the last two characters swapped. */
function alter(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? value + (value > 100 ? 9 : 1) : value * 3;
  const s = String(value);
  return s.length < 2 ? `${s}x` : `${s.slice(0, -2)}${s.at(-1)}${s.at(-2)}`;
}

const INVENTED: Readonly<Record<string, unknown>> = {
  title: 'Effects of a structured lifestyle programme on quality of life',
  journal: 'Journal of Clinical Research',
  year: 2011,
  sampleSize: 350,
  durationWeeks: 10,
  doseMg: 25,
  pValue: 0.049,
  registration: 'NCT01234567',
  doi: '10.1000/jcr.2011.042',
  contactEmail: 'info@trial-office.example',
};
/** Fields whose values can trade places (same JSON type and plausible for either). */
const SWAPS: readonly [string, string][] = [
  ['sampleSize', 'durationWeeks'],
  ['doseMg', 'pValue'],
  ['title', 'journal'],
  ['registration', 'doi'],
  ['sampleSize', 'year'],
];

/** The labelled answer with one planted error of `kind` (the fields it touched), or undefined when none fits. */
export function plant(
  labels: Record<string, unknown>,
  kind: PlantedError,
  seed: number,
): { data: Record<string, unknown>; planted: string[] } | undefined {
  const scalars = Object.keys(labels).filter((f) => !Array.isArray(labels[f]));
  if (kind === 'swapped') {
    const options = SWAPS.filter(([a, b]) => labels[a] !== undefined && labels[b] !== undefined);
    if (options.length === 0) return undefined;
    const [a, b] = options[seed % options.length]!;
    return { data: { ...labels, [a]: labels[b], [b]: labels[a] }, planted: [a, b] };
  }
  const field = scalars[seed % scalars.length]!;
  const value = kind === 'altered' ? alter(labels[field]) : INVENTED[field];
  return { data: { ...labels, [field]: value }, planted: [field] };
}

/** Grounding alone on the labelled answers, each with one planted error of each kind. */
export function calibrateGrounding(documents: readonly AbstractDocument[]): GroundingCalibration {
  const all: Scored[] = [];
  const held: Scored[] = [];
  const rightOnes: Scored[] = [];
  const wrongByError: Record<PlantedError, Scored[]> = { altered: [], swapped: [], invented: [] };
  documents.forEach((document, i) => {
    const add = (s: Scored) => (all.push(s), document.heldOut && held.push(s));
    const clean = scoreFields(document.labels, ABSTRACT_SCHEMA, document.text);
    for (const [, path] of leaves(document.labels)) {
      const s = { right: true, confidence: clean.fieldConfidences[path] ?? 0 };
      add(s);
      rightOnes.push(s);
    }
    for (const kind of ['altered', 'swapped', 'invented'] as const) {
      const variant = plant(document.labels, kind, i);
      if (!variant) continue;
      const scores = scoreFields(variant.data, ABSTRACT_SCHEMA, document.text);
      for (const field of variant.planted) {
        const s = { right: false, confidence: scores.fieldConfidences[`/${field}`] ?? 0 };
        add(s);
        wrongByError[kind].push(s);
      }
    }
  });
  const byError = Object.fromEntries(
    (Object.keys(wrongByError) as PlantedError[]).map((k) => [k, auroc([...rightOnes, ...wrongByError[k]])]),
  ) as Record<PlantedError, number>;
  return { all: separation(all), heldOut: separation(held), byError };
}
