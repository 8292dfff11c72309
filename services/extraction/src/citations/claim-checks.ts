import { findNumbers, mentionMatches, type NumberMention, sameNumber } from '../core/numbers.js';
import { indexOfWords, normalise } from '../core/text.js';

/**
 * What can be said of a claim against its source without a model: a number it states that the
 * source states nowhere (in any form: 1,200 / 1200; 45% / 0.45), a name it gives (an acronym, a
 * capitalised word inside the sentence, a gene or drug code) that the source never mentions, and a
 * quotation that is not in the source (up to case, punctuation and spacing). Each finding is a
 * reason to doubt the claim, never a verdict: the client's model still judges it with the
 * passages. Tuned to never flag a supported claim on the labelled set (ADR 0060). Pure.
 */

export type CheckKind = 'number_not_in_source' | 'name_not_in_source' | 'quote_not_in_source';

export interface CheckFinding {
  kind: CheckKind;
  /** The number, name or quotation as the claim writes it. */
  value: string;
}

/** Quotations of at least this many words are checked; shorter ones are often scare quotes. */
const MIN_QUOTE_WORDS = 3;
const QUOTATION = /["“]([^"“”]+)["”]/g;
/** Acronyms and codes (NHANES, BRCA1, IL-6, COVID-19) and capitalised words. */
const NAME = /(?<![\p{L}\p{N}])(\p{Lu}[\p{L}\p{N}]*(?:[-‑]\p{Lu}?[\p{L}\p{N}]+)*)/gu;
/** Capitalised words that are not names: they open clauses or are set in capitals by style. */
const NOT_NAMES = new Set(
  (
    'a an the this that these those in on at of for and or but however although while when where which whereas ' +
    'we our it its their there here after before during between among compared overall moreover furthermore ' +
    'p ci or hr rr i ii iii iv table figure fig'
  ).split(' '),
);

export function checkClaim(claim: string, sourceText: string): CheckFinding[] {
  const findings: CheckFinding[] = [];
  const quoted: Array<[number, number]> = [];
  const source = normalise(sourceText);

  for (const m of claim.matchAll(QUOTATION)) {
    quoted.push([m.index, m.index + m[0].length]);
    const quote = normalise(m[1]!);
    if (quote.split(' ').length < MIN_QUOTE_WORDS) continue;
    if (indexOfWords(source, quote) < 0) findings.push({ kind: 'quote_not_in_source', value: m[1]!.trim() });
  }
  const insideQuote = (at: number) => quoted.some(([a, b]) => at >= a && at < b);

  const stated = findNumbers(sourceText);
  for (const n of findNumbers(claim)) {
    if (insideQuote(n.start)) continue;
    if (!stated.some((m) => sameStatedNumber(n, m)))
      findings.push({ kind: 'number_not_in_source', value: claim.slice(n.start, n.end) });
  }

  const sourceWords = new Set(source.split(' '));
  const firstWord = claim.search(/\p{L}/u);
  for (const m of claim.matchAll(NAME)) {
    if (insideQuote(m.index) || m.index === firstWord) continue;
    const name = m[1]!;
    if (!isName(name)) continue;
    const norm = normalise(name);
    if (norm.length === 0 || NOT_NAMES.has(norm)) continue;
    if (indexOfWords(source, norm) >= 0) continue;
    // A name written as one word here and hyphenated or spaced there (IL6 / IL-6) is the same name.
    if (sourceWords.has(norm.replace(/ /g, '')) || source.replace(/ /g, '').includes(norm.replace(/ /g, ''))) continue;
    findings.push({ kind: 'name_not_in_source', value: name });
  }
  return findings;
}

/**
 * Whether the claim's number `n` is what the source's `m` says: the same value in any form, the
 * same size where the sign is said in words ("fell by 14.9%" for "-14.9%"), or the complement of a
 * percentage ("kept 95%" for "lost less than 5%").
 */
function sameStatedNumber(n: NumberMention, m: NumberMention): boolean {
  if (mentionMatches(n.value, m) || mentionMatches(m.value, n)) return true;
  if (mentionMatches(Math.abs(n.value), { ...m, value: Math.abs(m.value), base: Math.abs(m.base) })) return true;
  return n.percent && m.percent && sameNumber(n.value, 100 - Math.abs(m.value));
}

/**
 * A word that names something: an acronym or code (two capitals, or a capital with digits), or a
 * capitalised word of four letters or more inside a sentence. Adjectives of nations and
 * languages (Danish, European) are capitalised too and count as names: a claim about a Danish
 * cohort that cites a Swedish one is worth a look.
 */
function isName(word: string): boolean {
  if (/\p{Lu}.*\p{Lu}/u.test(word) || /\p{N}/u.test(word)) return word.length >= 2;
  return word.length >= 4;
}
