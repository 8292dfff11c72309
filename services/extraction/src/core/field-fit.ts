import type { Span } from '../types.js';
import { splitIdentifier } from './text.js';

/**
 * Does a grounded value fit the field it was put in? Grounding says the value is in the text; this
 * says whether the place it was found in reads like the field's meaning, from what the field's
 * name, title and description say (pure; no domain list beyond common units):
 *
 * - a unit: a field that names one (`durationWeeks`, "dose in mg") wants a number written with
 *   that unit; a number written with another unit ("52 weeks" in a sample-size field, "150 mg" in
 *   a p-value, "0.5 mg/kg" in a dose in mg) does not fit;
 * - a year: a plausible calendar year (1800–2100) not written as an age or duration ("60 years");
 * - a p-value: a number that follows "P =", "P <" or "p-value";
 * - an identifier by shape: a DOI starts with `10.`, a trial registration has a registry's shape
 *   (REGISTRATION: NCT + 8 digits, ISRCTN, EudraCT, the WHO primary registries' forms);
 * - a count of people: not a bare four-digit year ("Published 2019");
 * - by place: a `journal` is named where the work is cited (after "published in", or with the
 *   year on its line), and a `title` is not (a journal's name put in the title field is in the
 *   text, but where a journal is named).
 *
 * Returns the cap the value's confidence gets: 1 when it fits or nothing is known, MISFIT when it
 * does not. A misfit caps, it does not zero: the rules are shallow and a field's name can mislead.
 */
export const MISFIT = 0.3;

/**
 * A trial registration number by the shapes of the registries trials are registered in
 * (ClinicalTrials.gov, ISRCTN, EudraCT and the WHO primary registries: ANZCTR, ChiCTR, CTRI, DRKS,
 * IRCT, jRCT/UMIN, Netherlands, PACTR, ReBEC, SLCTR, TCTR, CRiS). Group 1 is the number.
 */
export const REGISTRATION =
  /(?<![\w/-])(NCT\d{8}|ISRCTN\d{8}|\d{4}-\d{6}-\d{2}|ACTRN\d{14}|ChiCTR-?[A-Z]{0,4}-?\d{6,}|CTRI\/\d{4}\/\d{2,3}\/\d{6}|DRKS\d{8}|IRCT\d+N\d+|jRCT\w?\d{6,}|UMIN\d{9}|NTR\d{3,5}|NL\d{4,}|PACTR\d{15}|RBR-[a-z0-9]{6,8}|SLCTR\/\d{4}\/\d{3}|TCTR\d{11}|KCT\d{7})(?![\w/-])/;

export const UNITS: Readonly<Record<string, readonly string[]>> = {
  weeks: ['week', 'weeks', 'wk', 'wks'],
  days: ['day', 'days', 'nights'],
  months: ['month', 'months', 'mo'],
  years: ['year', 'years', 'yr', 'yrs'],
  hours: ['hour', 'hours', 'h', 'hr', 'hrs'],
  mg: ['mg', 'milligram', 'milligrams'],
  g: ['g', 'gram', 'grams'],
  kg: ['kg'],
  ml: ['ml'],
  percent: ['%', 'percent'],
  people: ['patients', 'participants', 'adults', 'children', 'women', 'men', 'people', 'subjects', 'pupils', 'mothers'],
};
const UNIT_OF_WORD = new Map<string, string>(
  Object.entries(UNITS).flatMap(([unit, words]) => words.map((w) => [w, unit] as const)),
);
/** Label words saying the field counts people. */
const PEOPLE_LABELS = new Set([
  'sample',
  'participants',
  'patients',
  'enrolled',
  'enrollment',
  'enrolment',
  'subjects',
]);

export interface FieldMeaning {
  /** The field's key, title and description. */
  labels: readonly string[];
}

export function labelWords(meaning: FieldMeaning): Set<string> {
  return new Set(meaning.labels.flatMap((l) => splitIdentifier(l).split(' ')).filter(Boolean));
}

/** The unit a field asks for, from its label words (undefined when it names none). */
export function wantedUnit(words: Set<string>): string | undefined {
  for (const w of words) {
    const unit = UNIT_OF_WORD.get(w);
    if (unit && unit !== 'years') return unit;
  }
  if ([...words].some((w) => PEOPLE_LABELS.has(w))) return 'people';
  return undefined;
}

/** The unit written right after the span ("52 weeks", "150 mg", "1,256 adults"), if any. */
function writtenUnit(text: string, span: Span): string | undefined {
  // The span may hold the unit already (`45%`, `3 million`): read from the number's start.
  const after = /^[-−]?[\d.,'\u00a0\u202f]*\d?\s?(?:[-–]\s?)?(%|[\p{L}]+)(\s?\/\s?\p{L})?/u.exec(
    text.slice(span.start, span.end + 24),
  );
  if (!after) return undefined;
  const unit = UNIT_OF_WORD.get(after[1]!.toLowerCase());
  // "0.5 mg/kg" is a dose per kilogram, not a dose in mg.
  return unit && after[2] ? `${unit} per` : unit;
}

export function fieldFit(value: unknown, meaning: FieldMeaning, text: string, span: Span | undefined): number {
  const words = labelWords(meaning);
  if (typeof value === 'string') {
    if (words.has('doi')) return /^10\.\d{4,9}\/\S+$/.test(value.trim()) ? 1 : MISFIT;
    if (words.has('nct') || words.has('registration') || words.has('registry'))
      return new RegExp(`^(?:${REGISTRATION.source}|[A-Z]{2,}[-\\w]*\\d{4,})$`, 'i').test(value.trim()) ? 1 : MISFIT;
    if (!span) return 1;
    if (words.has('journal')) return citedAsJournal(text, span) ? 1 : MISFIT;
    if (words.has('title')) return citedAsJournal(text, span) ? MISFIT : 1;
    return 1;
  }
  if (typeof value !== 'number' || !span) return 1;
  const unit = writtenUnit(text, span);
  const before = text.slice(Math.max(0, span.start - 12), span.start);
  if (words.has('year') && !words.has('years')) {
    if (!Number.isInteger(value) || value < 1800 || value > 2100) return MISFIT;
    return unit === 'years' || /[\d,]/.test(text.slice(span.start, span.end).replace(/^\d{4}$/, '')) ? MISFIT : 1;
  }
  if (words.has('p') && (words.has('value') || words.size === 1)) {
    return /\bp(?:[- ]?value)?\s*(?:[=<>≤]|of)\s*$/i.test(before) ? 1 : MISFIT;
  }
  const wanted = wantedUnit(words);
  if (!wanted) return 1;
  if (unit === undefined) return wanted === 'people' && !looksLikeYear(value, text, span, before) ? 1 : MISFIT;
  return unit === wanted ? 1 : MISFIT;
}

/** A count of people written as a bare year ("… Published 2019") is a year, unless "n = 2019" says otherwise. */
function looksLikeYear(value: number, text: string, span: Span, before: string): boolean {
  return (
    Number.isInteger(value) &&
    value >= 1800 &&
    value <= 2100 &&
    /^\d{4}$/.test(text.slice(span.start, span.end)) &&
    !/\bn\s*=\s*$/i.test(before)
  );
}

/** The line a span is on, and the span's offsets within it. */
function lineAround(text: string, span: Span): { line: string; start: number; end: number } {
  const lineStart = text.lastIndexOf('\n', span.start - 1) + 1;
  const next = text.indexOf('\n', span.end);
  const line = text.slice(lineStart, next < 0 ? text.length : next);
  return { line, start: span.start - lineStart, end: span.end - lineStart };
}

/**
 * A journal is named where the work is cited: after "published in", "in" or a "Journal:" label, or
 * followed on its line by the year ("JAMA, 2022", "Diabetologia (2016)"). A title or a sentence
 * of the abstract put in the journal field is not.
 */
function citedAsJournal(text: string, span: Span): boolean {
  const { line, start, end } = lineAround(text, span);
  if (/(?:\bpublished\s+(?:\S+\s+)?in|\bin|\bjournal\s*:)\s*(?:the\s+)?$/i.test(line.slice(0, start))) return true;
  return /^[\s,.;:(]{0,3}(?:\p{L}+\s+)?(?:\d{1,2}\s+)?(?:18|19|20)\d{2}\b/u.test(line.slice(end, end + 30));
}
