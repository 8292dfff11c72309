import { labelWords, UNITS, wantedUnit } from '../core/field-fit.js';
import { groundValue } from '../core/grounding.js';
import { findNumbers } from '../core/numbers.js';
import { isObject } from '../core/schema-walk.js';
import type { JsonSchemaObject, Span } from '../types.js';
import { distinctMatches, DOI, P_VALUE, REGISTRATION, SCREENED } from './shapes.js';

/**
 * The offline extractor's own confidence, graded by the evidence each top-level value rests on
 * rather than by the pass that found it. Shape rules and labelled clauses are often right and
 * sometimes wrong in ways the text shows: the field has several candidates (two P values, an NCT
 * and an ISRCTN number, one arm's count beside the other's, two drugs' doses), or the number is a
 * time point rather than a duration ("from 12 weeks of gestation"). Where the text cannot say
 * which candidate is meant, the field is left out rather than filled with a coin toss (the
 * caller's model can read it); where it can, the value keeps a grade saying how directly it was
 * named. Per field meaning:
 *
 * - count of people: 0.9 after the verb that enrols them (or "n =") with people named after it;
 *   0.7 with one of the two, 0.5 with neither; dropped when a larger bare count (not of those
 *   screened) stands in the same sentence (then this one is an arm or a subgroup);
 * - number with a unit: a duration 0.85 after "for / over / during" or written "24-week", 0.6
 *   otherwise; another measure written with its unit 0.8; dropped when the text holds several
 *   values with that unit, or when it is a time point ("at 12 weeks", "weeks of gestation");
 * - p-value: 0.9 for the only "P =" of the text, 0.6 for the first of several;
 * - year: 0.9 for the only plausible year, 0.6 when there are several;
 * - identifier (DOI, trial registration): 0.95 for the only one of its shape, 0.5 for several.
 *
 * A number on a "Label: value" line keeps the labelled pass's grade. A text value stops at its sentence: a trailing "(2019)" or ". Year: 2023" belongs to another
 * field. The grade replaces the finding pass's number (the scorer still takes the minimum with
 * grounding and field fit).
 */

const SEVERAL = 0.5;
/** The first P value of an abstract is most often its primary outcome's. */
const FIRST_OF_SEVERAL_P = 0.6;

const ENROLMENT_CUE =
  /\b(?:enrolled|enrolling|recruited|randomi[sz]ed|randomly assigned|assigned|included|allocated|a total of|among|of|in|with|n\s*=)\s*(?:[\p{L}-]+\s+){0,2}$/iu;
const NUMBER_SIGN = /\bn\s*=\s*$/i;
const DURATION_CUE = /\b(?:for|over|during|lasting|up to|followed for|treated for)\s+(?:a\s+)?$/i;
const TIME_POINT_BEFORE = /\b(?:at|from|until|by|within|after|since|before)\s+$/i;
const TIME_POINT_AFTER =
  /^[’']?\s*(?:of\s+(?:gestation|age|pregnancy|life)|gestation|old|postpartum|after|later|post)\b/i;
const YEAR_CANDIDATE = /(?<![\w.,/-])((?:18|19|20)\d{2})(?![\w,])(?!\s*(?:years?|-year))/g;
const TRAILING_YEAR = /\s*\((?:published\s+(?:online\s+)?)?(?:18|19|20)\d{2}\)$/i;
const NEXT_LABEL = /[.;]\s+[A-Z][\p{L} ]{0,24}:.*$/u;

const LABELLED = /(?:^|\n|[.;]\s+)[\s*•-]*\p{L}[\p{L} ()/-]{0,40}:\s*$/u;

type Grade = number | 'drop';

export function gradeByEvidence(
  data: Record<string, unknown>,
  schema: JsonSchemaObject,
  text: string,
  confidences: Record<string, number>,
): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const out = { ...data };
  for (const [key, sub] of Object.entries(properties)) {
    const value = out[key];
    if (!isObject(sub) || (typeof value !== 'string' && typeof value !== 'number')) continue;
    const words = labelWords({
      labels: [key, ...[sub.title, sub.description].filter((l): l is string => typeof l === 'string')],
    });
    const path = `/${key}`;
    if (typeof value === 'string') {
      const trimmed = stopAtSentence(value, words);
      if (trimmed !== value) out[key] = trimmed;
      const grade = stringGrade(words, text);
      if (grade !== undefined) confidences[path] = grade;
      continue;
    }
    const span = groundValue(value, text).span;
    // A "Label: value" line is its own evidence, graded by how well the label matched.
    if (!span || LABELLED.test(text.slice(Math.max(0, span.start - 60), span.start))) continue;
    const grade = numberGrade(value, words, text, span);
    if (grade === 'drop') {
      delete out[key];
      delete confidences[path];
    } else if (grade !== undefined) confidences[path] = grade;
  }
  return out;
}

function stopAtSentence(value: string, words: Set<string>): string {
  if (words.has('title') || words.has('doi')) return value;
  const cut = value.replace(NEXT_LABEL, '').replace(TRAILING_YEAR, '').trim();
  return cut.length > 0 ? cut : value;
}

function stringGrade(words: Set<string>, text: string): number | undefined {
  const distinct = (pattern: RegExp) => distinctMatches(text, pattern).size;
  if (words.has('doi')) return distinct(DOI) <= 1 ? 0.95 : SEVERAL;
  if (words.has('nct') || words.has('registration') || words.has('registry'))
    return distinct(REGISTRATION) <= 1 ? 0.95 : SEVERAL;
  return undefined;
}

function numberGrade(value: number, words: Set<string>, text: string, span: Span): Grade | undefined {
  const distinct = (pattern: RegExp) => new Set([...distinctMatches(text, pattern)].map(Number)).size;
  if (words.has('p') && (words.has('value') || words.size === 1))
    return distinct(P_VALUE) <= 1 ? 0.9 : FIRST_OF_SEVERAL_P;
  if (words.has('year') && !words.has('years')) return distinct(YEAR_CANDIDATE) <= 1 ? 0.9 : 0.6;
  const unit = wantedUnit(words);
  if (unit === 'people') return countGrade(value, text, span);
  if (unit) return measureGrade(unit, text, span);
  return undefined;
}

/** The sentence holding a span: from the last sentence end (or line break) before it to the next after it. */
function sentenceOf(text: string, span: Span): Span {
  const before = text.slice(0, span.start);
  const ends = [...before.matchAll(/[.!?;]\s+(?=[\p{Lu}\d(])|\n/gu)];
  const start = ends.length > 0 ? ends[ends.length - 1]!.index + ends[ends.length - 1]![0].length : 0;
  const after = /[.!?;]\s+(?=[\p{Lu}\d(])|\n|$/u.exec(text.slice(span.end))!;
  return { start, end: span.end + after.index };
}

const PEOPLE_AFTER = new RegExp(String.raw`^\s*(?:[\p{L}-]+\s+){0,3}?(?:${UNITS.people!.join('|')})\b`, 'iu');
const NOT_PEOPLE_UNIT = new RegExp(
  String.raw`^\s?-?(?:%|${Object.entries(UNITS)
    .filter(([u]) => u !== 'people')
    .flatMap(([, w]) => w)
    .filter((w) => w !== '%')
    .join('|')})\b`,
  'iu',
);

function countGrade(value: number, text: string, span: Span): Grade {
  const sentence = sentenceOf(text, span);
  const before = text.slice(sentence.start, span.start);
  const cue = ENROLMENT_CUE.test(before) || NUMBER_SIGN.test(before);
  const people = PEOPLE_AFTER.test(text.slice(span.end, span.end + 40));
  // A total is the largest count of its sentence: a larger bare count beside it means this one is an arm or a subgroup.
  const larger = findNumbers(text.slice(sentence.start, sentence.end)).some((m) => {
    const at = sentence.start + m.start;
    if (at === span.start || m.percent || !Number.isInteger(m.value) || m.value <= value) return false;
    if (/^(?:18|19|20)\d{2}$/.test(m.digits)) return false;
    const around = text.slice(Math.max(sentence.start, at - 30), sentence.start + m.end + 40);
    return (
      !NOT_PEOPLE_UNIT.test(text.slice(sentence.start + m.end, sentence.start + m.end + 12)) && !SCREENED.test(around)
    );
  });
  if (larger) return 'drop';
  return cue && people ? 0.9 : cue || people ? 0.7 : 0.5;
}

const TIME_UNITS = new Set(['weeks', 'days', 'months', 'years', 'hours']);

/** Numbers written with `unit` ("52 weeks", "24-week", "150 mg"), not a compound like "mg/kg"; group 1 is the number. */
export function unitPattern(unit: string): RegExp {
  const words = UNITS[unit]!.join('|');
  return new RegExp(String.raw`(?<![\d.,])(\d+(?:\.\d+)?)\s?-?(?:${words})\b(?!\s?\/\s?\p{L})`, 'giu');
}

/** A moment rather than a length of time: "at 12 weeks", "from 12 weeks of gestation", "36 weeks' gestation". */
export function isTimePoint(unit: string, text: string, start: number, length: number): boolean {
  if (!TIME_UNITS.has(unit)) return false;
  return (
    TIME_POINT_BEFORE.test(text.slice(Math.max(0, start - 12), start)) ||
    TIME_POINT_AFTER.test(text.slice(start + length))
  );
}

/** A length of time said as one: "for 52 weeks", "over 16 weeks", "a 24-week programme". */
export function durationCued(text: string, start: number, match: string, digits: string): boolean {
  return DURATION_CUE.test(text.slice(Math.max(0, start - 24), start)) || match.slice(digits.length).startsWith('-');
}

function measureGrade(unit: string, text: string, span: Span): Grade {
  const here = new RegExp(unitPattern(unit).source, 'iuy');
  here.lastIndex = span.start;
  const match = here.exec(text);
  if (!match) return 0.5;
  if (isTimePoint(unit, text, span.start, match[0].length)) return 'drop';
  const candidates = new Set(
    [...text.matchAll(unitPattern(unit))]
      .filter((m) => !isTimePoint(unit, text, m.index, m[0].length))
      .map((m) => Number(m[1])),
  );
  const grade = !TIME_UNITS.has(unit) ? 0.8 : durationCued(text, span.start, match[0], match[1]!) ? 0.85 : 0.6;
  return candidates.size > 1 ? 'drop' : grade;
}
