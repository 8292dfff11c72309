import { fieldFit, labelWords, MISFIT, UNITS, wantedUnit } from '../core/field-fit.js';
import { groundValue } from '../core/grounding.js';
import { parseNumber } from '../core/numbers.js';
import { isObject } from '../core/schema-walk.js';
import type { JsonSchemaObject } from '../types.js';
import { authorLine } from './authors.js';
import { journalName } from './journal.js';
import { durationCued, isTimePoint, unitPattern } from './evidence.js';
import { DOI, NCT, P_VALUE, REGISTRATION, SCREENED } from './shapes.js';

/**
 * The offline extractor's last pass, over the top-level fields of the schema, by what a field
 * means (its name, title and description; core/field-fit.ts):
 *
 * 1. a value already found that does not fit the field (a `year` of 60 from "aged 60 years", a
 *    DOI that is not shaped like one) is dropped: a misfit is a guess;
 * 2. a field still missing is looked for by shape or in the clause that names it: identifiers
 *    (NCT numbers, ISRCTN, DOIs), a p-value after "P =", a count of people after the verb that
 *    enrols them ("enrolled 1,256 adults", "a total of 312 participants"), a number with the
 *    field's unit ("52 weeks", "150 mg"), and a publication year.
 *
 * Values found here get a provider confidence of CLAUSE_CONFIDENCE (shape rules miss context).
 */
const CLAUSE_CONFIDENCE = 0.8;

const PEOPLE = UNITS.people!.join('|');
const ENROLLED = new RegExp(
  String.raw`\b(?:enrolled|enrolling|recruited|randomi[sz]ed|randomly assigned|included|allocated|a total of|among|of|in)\s+(\d[\d,]*)\s+(?:[\p{L}-]+\s+){0,3}?(?:${PEOPLE})\b`,
  'iu',
);
/** "1,380 patients were randomly assigned", "2,852 were enrolled". */
const ENROLLED_AFTER = new RegExp(
  String.raw`(?<![\d.,])(\d[\d,]*)\s+(?:(?:[\p{L}-]+\s+){0,2}?(?:${PEOPLE})\s+)?(?:were|was)\s+(?:enrolled|recruited|randomi[sz]ed|randomly assigned|assigned|allocated|included)\b`,
  'iu',
);
/** "(n = 132)": only a count when the clause is not about who was screened or assessed. */
const N_EQUALS = /\bn\s*=\s*(\d[\d,]*)/giu;

function enrolledCount(t: string): number | undefined {
  for (const pattern of [ENROLLED, ENROLLED_AFTER]) {
    const m = pattern.exec(t);
    if (m && !SCREENED.test(t.slice(m.index, m.index + m[0].length + 12))) return parseNumber(m[1]!)?.value;
  }
  for (const n of t.matchAll(N_EQUALS)) {
    if (!SCREENED.test(t.slice(Math.max(0, n.index - 30), n.index))) return parseNumber(n[1]!)?.value;
  }
  return undefined;
}

const YEAR = /(?<![\d,.])((?:19|20)\d{2})(?![\d,])(?!\s*(?:years?|-year))/g;

type Finder = (text: string) => unknown;

function finderFor(words: Set<string>, type: unknown): Finder | undefined {
  const numeric = type === 'number' || type === 'integer';
  if (type === 'string') {
    if (words.has('doi')) return (t) => DOI.exec(t)?.[1];
    if (words.has('nct') || words.has('registration') || words.has('registry'))
      // ClinicalTrials.gov first, as before: the number most readers look for when several are given.
      return (t) => NCT.exec(t)?.[1] ?? REGISTRATION.exec(t)?.[1];
    return undefined;
  }
  if (!numeric) return undefined;
  if (words.has('p') && (words.has('value') || words.size === 1))
    return (t) => {
      const m = P_VALUE.exec(t);
      return m ? Number(m[1]) : undefined;
    };
  if (words.has('year') && !words.has('years')) {
    return (t) => {
      for (const m of t.matchAll(YEAR)) {
        const before = t.slice(Math.max(0, m.index - 10), m.index);
        if (!/aged\s*$/i.test(before)) return Number(m[1]);
      }
      return undefined;
    };
  }
  const unit = wantedUnit(words);
  if (unit === 'people') return enrolledCount;
  if (unit) {
    // Not a time point ("at 6 weeks", "36 weeks' gestation"); a duration named as one ("for 12 weeks") first.
    return (t) => {
      const mentions = [...t.matchAll(unitPattern(unit))].filter((m) => !isTimePoint(unit, t, m.index, m[0].length));
      const pick = mentions.find((m) => durationCued(t, m.index, m[0], m[1]!)) ?? mentions[0];
      return pick ? Number(pick[1]) : undefined;
    };
  }
  return undefined;
}

export function fieldsByMeaning(
  data: Record<string, unknown>,
  schema: JsonSchemaObject,
  text: string,
  confidences: Record<string, number>,
): Record<string, unknown> {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const out = { ...data };
  for (const [key, sub] of Object.entries(properties)) {
    if (!isObject(sub)) continue;
    const labels = [key, ...(typeof sub.title === 'string' ? [sub.title] : [])];
    const meaning = { labels: [...labels, ...(typeof sub.description === 'string' ? [sub.description] : [])] };
    const present = out[key];
    if (present !== undefined && (typeof present === 'string' || typeof present === 'number')) {
      if (fieldFit(present, meaning, text, groundValue(present, text).span) === MISFIT) delete out[key];
      else continue;
    }
    if (out[key] !== undefined) continue;
    const words = labelWords(meaning);
    if (sub.type === 'array' && (words.has('authors') || words.has('author'))) {
      const names = authorLine(text);
      if (names) {
        out[key] = names;
        confidences[`/${key}`] = CLAUSE_CONFIDENCE;
      }
      continue;
    }
    if (sub.type === 'string' && words.has('journal')) {
      const journal = journalName(text);
      if (journal) {
        out[key] = journal.value;
        confidences[`/${key}`] = journal.confidence;
      }
      continue;
    }
    const found = finderFor(words, sub.type)?.(text);
    if (found === undefined || (typeof found === 'number' && !Number.isFinite(found))) continue;
    if (sub.type === 'integer' && !Number.isInteger(found)) continue;
    out[key] = found;
    confidences[`/${key}`] = CLAUSE_CONFIDENCE;
  }
  return out;
}
