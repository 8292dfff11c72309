import type { GroundingKind, Span } from '../types.js';
import { parseDate, type DateMention } from './dates.js';
import { labelPolarity } from './label-polarity.js';
import { mentionMatches, parseNumber, type NumberMention } from './numbers.js';
import { prepare, type Source } from './prepared-source.js';
import { indexOfWords, normalise, originalSpan, splitIdentifier } from './text.js';
import { FUZZY_THRESHOLD, passageSimilarity, wordSimilarity } from './word-similarity.js';

/**
 * Grounding: where, and how literally, an extracted value appears in the source text. Each kind
 * carries the weight the confidence formula uses (see confidence.ts and the README):
 *
 * | kind         | when                                                              | weight      |
 * |--------------|-------------------------------------------------------------------|-------------|
 * | `exact`      | the value's text occurs as is, on word boundaries                  | 1.0         |
 * | `normalised` | it occurs ignoring case, whitespace, punctuation, diacritics      | 0.9         |
 * | `numeric`    | the same number is written differently (1,200 / 1200; 45% / 0.45) | 0.9         |
 * | `date`       | the same day is written differently (see dates.ts)                | 0.9; 0.7 when the match relies on reading an ambiguous dd/mm/yyyy (either way round) |
 * | `fuzzy`      | a passage with similarity s ≥ 0.75 (word-level, see below)       | 0.4 + 0.3·(s − 0.75)/0.25, i.e. 0.4–0.7 |
 * | `none`       | nothing found                                                     | 0.1         |
 *
 * Booleans cannot be found literally; with a label (the field's name) they are grounded by a
 * mention of the label and the words next to it (`labelPolarity`): an explicit yes/true/✓ (for
 * true) or no/not/none/without/✗ (for false) → `normalised` 0.9; for `true`, a mention without any
 * polarity word ("a remote position") → `fuzzy` 0.5; anything else → `none`.
 */
export interface Grounding {
  kind: GroundingKind;
  span?: Span;
  /** The grounding weight of the confidence formula, in [0, 1]. */
  weight: number;
  /** For `fuzzy`: the similarity of the best passage. */
  similarity?: number;
}

export interface GroundingHint {
  /** Names the value is known by (the field's key, its title): needed to ground booleans. */
  labels?: readonly string[];
  /** The field's enum: enum values are also looked for as words (`full_time` → "full time"). */
  enum?: readonly unknown[];
}

const GROUNDING_WEIGHTS = Object.freeze({
  exact: 1,
  normalised: 0.9,
  numeric: 0.9,
  date: 0.9,
  ambiguousDate: 0.7,
  fuzzyMin: 0.4,
  fuzzyMax: 0.7,
  booleanMention: 0.5,
  none: 0.1,
});

const NONE: Grounding = Object.freeze({ kind: 'none', weight: GROUNDING_WEIGHTS.none });

export function groundValue(value: unknown, sourceText: string, hint: GroundingHint = {}): Grounding {
  const source = prepare(sourceText);
  if (typeof value === 'boolean') return groundBoolean(value, source, hint.labels ?? []);
  if (typeof value === 'number') return Number.isFinite(value) ? (groundNumber(value, source) ?? NONE) : NONE;
  if (typeof value !== 'string') return NONE;
  const text = value.trim();
  if (text.length === 0) return NONE;
  return (
    groundExact(text, source) ??
    groundNormalised(text, source, hint) ??
    groundNumericString(text, source) ??
    groundDate(text, source) ??
    groundFuzzy(text, source) ??
    NONE
  );
}

const ALNUM = /[\p{L}\p{N}]/u;

function groundExact(value: string, source: Source): Grounding | undefined {
  const needsBefore = ALNUM.test(value[0]!);
  const needsAfter = ALNUM.test(value[value.length - 1]!);
  for (let at = source.text.indexOf(value); at >= 0; at = source.text.indexOf(value, at + 1)) {
    const end = at + value.length;
    if (needsBefore && at > 0 && ALNUM.test(source.text[at - 1]!)) continue;
    if (needsAfter && end < source.text.length && ALNUM.test(source.text[end]!)) continue;
    return { kind: 'exact', span: { start: at, end }, weight: GROUNDING_WEIGHTS.exact };
  }
  return undefined;
}

function groundNormalised(value: string, source: Source, hint: GroundingHint): Grounding | undefined {
  const variants = [normalise(value)];
  if (hint.enum?.includes(value)) variants.push(splitIdentifier(value));
  for (const variant of variants) {
    const at = indexOfWords(source.norm.text, variant);
    if (at >= 0)
      return {
        kind: 'normalised',
        span: originalSpan(source.norm, at, at + variant.length),
        weight: GROUNDING_WEIGHTS.normalised,
      };
  }
  return undefined;
}

function groundNumber(value: number, source: Source): Grounding | undefined {
  let numeric: NumberMention | undefined;
  for (const mention of source.numbers) {
    if (!mentionMatches(value, mention)) continue;
    if (mention.digits === String(value))
      return { kind: 'exact', span: { start: mention.start, end: mention.end }, weight: GROUNDING_WEIGHTS.exact };
    numeric ??= mention;
  }
  return numeric
    ? { kind: 'numeric', span: { start: numeric.start, end: numeric.end }, weight: GROUNDING_WEIGHTS.numeric }
    : undefined;
}

/** A string that is only a number (with currency signs or a currency code): grounded as that number. */
function groundNumericString(value: string, source: Source): Grounding | undefined {
  const mention = parseNumber(value);
  if (!mention) return undefined;
  const rest = (value.slice(0, mention.start) + value.slice(mention.end)).replace(/\p{Sc}|\b[A-Z]{3}\b|\s/gu, '');
  if (rest.length > 0) return undefined;
  const grounded = groundNumber(mention.value, source);
  return grounded ? { ...grounded, kind: 'numeric', weight: GROUNDING_WEIGHTS.numeric } : undefined;
}

function groundDate(value: string, source: Source): Grounding | undefined {
  const date = parseDate(value);
  if (!date) return undefined;
  const wanted = date.ambiguous ? [date.iso, date.alternative!] : [date.iso];
  let ambiguous: DateMention | undefined;
  for (const mention of source.dates) {
    if (wanted.includes(mention.iso) && !date.ambiguous && !mention.ambiguous) {
      return { kind: 'date', span: { start: mention.start, end: mention.end }, weight: GROUNDING_WEIGHTS.date };
    }
    if (wanted.includes(mention.iso) || (mention.alternative && wanted.includes(mention.alternative)))
      ambiguous ??= mention;
  }
  return ambiguous
    ? { kind: 'date', span: { start: ambiguous.start, end: ambiguous.end }, weight: GROUNDING_WEIGHTS.ambiguousDate }
    : undefined;
}

/** Longest value (in words) fuzzy matching is tried for, and the most passages compared. */
const FUZZY_MAX_WORDS = 50;
const FUZZY_MAX_WINDOWS = 3000;

function groundFuzzy(value: string, source: Source): Grounding | undefined {
  const normValue = normalise(value);
  if (normValue.length < 4) return undefined;
  const valueWords = normValue.split(' ');
  const k = valueWords.length;
  if (k > FUZZY_MAX_WORDS) return undefined;
  // Anchors: text positions holding a word similar to one of the value's words (compared within
  // the same first letter: typos rarely hit the first letter, and it keeps this fast).
  const starts = new Set<number>();
  for (const [j, v] of valueWords.entries()) {
    for (const [word, positions] of source.vocabulary.get(v[0]!) ?? []) {
      if (wordSimilarity(v, word) === 0) continue;
      for (const i of positions) starts.add(i - j);
    }
  }
  // Word pairs repeat across overlapping passages: compare each pair once.
  const memo = new Map<string, number>();
  const similar = (a: string, b: string) => {
    const key = `${a}\u0000${b}`;
    let s = memo.get(key);
    if (s === undefined) memo.set(key, (s = wordSimilarity(a, b)));
    return s;
  };
  let best: { s: number; from: number; to: number } | undefined;
  let windows = 0;
  for (const start of [...starts].sort((a, b) => a - b)) {
    for (const length of [k - 1, k, k + 1]) {
      const from = Math.max(0, start);
      const to = Math.min(source.tokens.length, start + length);
      if (to <= from || ++windows > FUZZY_MAX_WINDOWS) continue;
      const s = passageSimilarity(
        valueWords,
        source.tokens.slice(from, to).map((t) => t.word),
        similar,
      );
      if (s >= FUZZY_THRESHOLD && (!best || s > best.s)) best = { s, from, to };
    }
  }
  if (!best) return undefined;
  const span = originalSpan(source.norm, source.tokens[best.from]!.start, source.tokens[best.to - 1]!.end);
  const weight =
    GROUNDING_WEIGHTS.fuzzyMin +
    ((GROUNDING_WEIGHTS.fuzzyMax - GROUNDING_WEIGHTS.fuzzyMin) * (best.s - FUZZY_THRESHOLD)) / (1 - FUZZY_THRESHOLD);
  return { kind: 'fuzzy', span, weight, similarity: best.s };
}

function groundBoolean(value: boolean, source: Source, labels: readonly string[]): Grounding {
  const evidence = labelPolarity(source.text, labels);
  const explicit = evidence.find((e) => e.polarity === String(value));
  if (explicit) return { kind: 'normalised', span: explicit.span, weight: GROUNDING_WEIGHTS.normalised };
  const mention = value ? evidence.find((e) => e.polarity === 'mention') : undefined;
  if (mention) return { kind: 'fuzzy', span: mention.span, weight: GROUNDING_WEIGHTS.booleanMention };
  return NONE;
}
