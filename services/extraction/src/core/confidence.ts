import type { FieldScore, JsonSchemaObject, Span } from '../types.js';
import { fieldFit } from './field-fit.js';
import { groundValue } from './grounding.js';
import { prepare } from './prepared-source.js';
import { escapePointer, isObject, resolveLocalRef } from './schema-walk.js';
import { indexOfWords, round3, splitIdentifier } from './text.js';

/**
 * Per-field confidence. The formula (also in the README):
 *
 *   leaf confidence = validity × min(grounding weight, field fit, provider confidence)
 *
 * - validity: 0 when the validator reported an error at the field (`invalidPaths`), else 1.
 * - grounding weight: from `groundValue` (exact 1.0, normalised 0.9, numeric 0.9, date 0.9 or 0.7
 *   if ambiguous, fuzzy 0.4–0.7 by similarity, boolean mention 0.5, none 0.1). So an ungrounded
 *   value never scores above 0.1, whatever the provider says.
 * - field fit: 1, or 0.3 when the place the value was found does not read like the field's
 *   meaning (a number with another unit than the field names, an implausible year, a p-value not
 *   after "P =", an identifier of the wrong shape): core/field-fit.ts.
 * - provider confidence: the provider's own number for the field, or for its nearest ancestor
 *   (providers report top-level fields); 1 when it gives none. Grounding says the value is in the
 *   text, the provider's number says it is the right value for this field: both must hold, and the
 *   confidence in a conjunction cannot exceed that in either part, so min (the upper bound of the
 *   conjunction whatever the correlation, unlike a product, which assumes independence and
 *   double-counts). The provider can lower a score, never raise it above the evidence.
 *
 * Values that claim absence (`null`, `""`, `[]`, `{}`): the absence cannot be grounded, so 0.5
 * ("no evidence either way") when the text never mentions the field's name, and 0.2 when it does
 * (the text seems to talk about the field, yet nothing was extracted); also capped by the
 * provider's confidence and zeroed by invalidity.
 *
 * Arrays score per item (`/tags/0`, `/tags/1`); an array's own confidence is the mean of its
 * items'. An object's is the mean of its present fields' plus 0 for each missing required field;
 * absent optional fields are not scored (nothing was claimed).
 *
 * overallConfidence: the mean over the root schema's REQUIRED fields, a missing one counting 0;
 * when the schema requires nothing, the mean over the fields present (0 when there are none).
 */

const ABSENT_CONFIDENCE = 0.5;
const ABSENT_BUT_MENTIONED_CONFIDENCE = 0.2;

export interface FieldScores {
  /** Confidence of every scored node by JSON Pointer: leaves, array items, arrays, objects. */
  fieldConfidences: Record<string, number>;
  /** Where each grounded leaf was found in the source text. */
  spans: Record<string, Span>;
  /** One entry per leaf value (and per absence claim), in document order. */
  fields: FieldScore[];
  overallConfidence: number;
}

export function scoreFields(
  data: unknown,
  schema: JsonSchemaObject,
  sourceText: string,
  providerConfidences: Readonly<Record<string, number>> = {},
  invalidPaths: Iterable<string> = [],
): FieldScores {
  const scorer = new Scorer(schema, sourceText, providerConfidences, new Set(invalidPaths));
  if (!isObject(data)) return { ...scorer.result, overallConfidence: 0 };
  const rootSchema = scorer.resolve(schema, data);
  const required = requiredOf(rootSchema);
  const scores = new Map<string, number>();
  for (const [key, value] of Object.entries(data)) {
    const score = scorer.node(value, propertySchema(rootSchema, key), `/${escapePointer(key)}`, key);
    if (score !== undefined) scores.set(key, score);
  }
  for (const key of required) if (!(key in data)) scorer.record(`/${escapePointer(key)}`, 0);
  const counted = required.length > 0 ? required.map((k) => scores.get(k) ?? 0) : [...scores.values()];
  return { ...scorer.result, overallConfidence: round3(mean(counted)) };
}

class Scorer {
  readonly result: Omit<FieldScores, 'overallConfidence'> = { fieldConfidences: {}, spans: {}, fields: [] };

  constructor(
    private readonly root: JsonSchemaObject,
    private readonly text: string,
    private readonly provider: Readonly<Record<string, number>>,
    private readonly invalid: ReadonlySet<string>,
  ) {}

  /** Score of one node; undefined for an absent value. */
  node(value: unknown, schema: unknown, path: string, label: string): number | undefined {
    if (value === undefined) return undefined;
    const sub = this.resolve(schema, value);
    if (
      value === null ||
      value === '' ||
      (Array.isArray(value) && value.length === 0) ||
      (isObject(value) && Object.keys(value).length === 0)
    ) {
      return this.leaf(path, this.cap(path, this.absenceConfidence(label)), 'none');
    }
    if (Array.isArray(value)) {
      const items = value.map(
        (item, i) => this.node(item, isObject(sub) ? sub.items : undefined, `${path}/${i}`, label) ?? 0,
      );
      return this.record(path, this.invalid.has(path) ? 0 : mean(items));
    }
    if (isObject(value)) {
      const scores: number[] = [];
      for (const [key, child] of Object.entries(value)) {
        const score = this.node(child, propertySchema(sub, key), `${path}/${escapePointer(key)}`, key);
        if (score !== undefined) scores.push(score);
      }
      for (const key of requiredOf(sub)) {
        if (!(key in value)) {
          this.record(`${path}/${escapePointer(key)}`, 0);
          scores.push(0);
        }
      }
      return this.record(path, this.invalid.has(path) ? 0 : mean(scores));
    }
    const labels = [label, ...(isObject(sub) && typeof sub.title === 'string' ? [sub.title] : [])];
    const enumValues = isObject(sub) && Array.isArray(sub.enum) ? sub.enum : undefined;
    const grounding = groundValue(value, this.text, { labels, ...(enumValues ? { enum: enumValues } : {}) });
    const description = isObject(sub) && typeof sub.description === 'string' ? [sub.description] : [];
    const fit = fieldFit(value, { labels: [...labels, ...description] }, this.text, grounding.span);
    const confidence = this.cap(path, Math.min(grounding.weight, fit));
    if (grounding.span) this.result.spans[path] = grounding.span;
    return this.leaf(path, confidence, grounding.kind, grounding.span);
  }

  /** Follow a local $ref and pick the anyOf/oneOf branch that fits the value's JSON type, for its hints. */
  resolve(schema: unknown, value: unknown): unknown {
    const sub = resolveLocalRef(this.root, schema);
    if (!isObject(sub)) return sub;
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const branches = sub[keyword];
      if (!Array.isArray(branches)) continue;
      const branch = branches
        .map((b) => resolveLocalRef(this.root, b))
        .find((b) => isObject(b) && fitsType(b.type, value));
      if (branch) return branch;
    }
    return sub;
  }

  record(path: string, confidence: number): number {
    this.result.fieldConfidences[path] = round3(confidence);
    return confidence;
  }

  private leaf(path: string, confidence: number, grounding: FieldScore['grounding'], span?: Span): number {
    this.record(path, confidence);
    this.result.fields.push({ path, grounding, ...(span ? { span } : {}), confidence: round3(confidence) });
    return confidence;
  }

  /** validity × min(weight, provider confidence of the field or its nearest ancestor). */
  private cap(path: string, weight: number): number {
    if (this.invalid.has(path)) return 0;
    for (let p = path; p !== ''; p = p.slice(0, p.lastIndexOf('/'))) {
      const given = this.provider[p];
      if (typeof given === 'number' && Number.isFinite(given)) return Math.min(weight, Math.max(0, Math.min(1, given)));
    }
    return weight;
  }

  private absenceConfidence(label: string): number {
    const phrase = splitIdentifier(label);
    const mentioned = phrase.length >= 3 && indexOfWords(prepare(this.text).norm.text, phrase) >= 0;
    return mentioned ? ABSENT_BUT_MENTIONED_CONFIDENCE : ABSENT_CONFIDENCE;
  }
}

function propertySchema(schema: unknown, key: string): unknown {
  if (!isObject(schema)) return undefined;
  const properties = schema.properties;
  return isObject(properties) ? properties[key] : undefined;
}

function requiredOf(schema: unknown): string[] {
  return isObject(schema) && Array.isArray(schema.required)
    ? schema.required.filter((k): k is string => typeof k === 'string')
    : [];
}

function fitsType(type: unknown, value: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  const actual =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'array'
        : typeof value === 'number'
          ? Number.isInteger(value)
            ? 'integer'
            : 'number'
          : typeof value;
  return types.some((t) => t === actual || (t === 'number' && actual === 'integer'));
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}
