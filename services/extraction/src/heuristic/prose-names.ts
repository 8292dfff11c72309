import { normalise } from '../core/text.js';
import type { DocumentModel } from './document.js';
import type { FieldSpec } from './fields.js';
import { GENERIC_WORDS, wordsMatch } from './labels.js';
import { readString } from './values.js';

/**
 * A string field's value read from prose (see prose.ts): a person's name from a salutation, a
 * title from the first line, a code or a proper name right after the field's name.
 */

/** "Dear Mr. Tanaka," for a person's name field (customer, guest, recipient…). */
export function salutation(model: DocumentModel, field: FieldSpec): { value: unknown; confidence: number } | undefined {
  const name = field.variants[0] ?? [];
  if (!name.includes('name') || !name.some((w) => PERSON_ROLES.has(w))) return undefined;
  for (const line of model.lines) {
    const m = /^\s*(?:dear|hello|hi|hey)\s+([^,!:]{2,60}?)\s*[,!:]?\s*$/i.exec(line.text);
    if (m) return { value: readString(m[1]!)?.value, confidence: 0.6 };
  }
  return undefined;
}

/** The first line as a title, for a field named title/headline/name/subject (the caller takes it once). */
export function firstLineTitle(
  model: DocumentModel,
  field: FieldSpec,
): { value: unknown; confidence: number } | undefined {
  const name = field.variants[0] ?? [];
  const last = name[name.length - 1];
  if (!last || !TITLE_WORDS.has(last) || name.some((w) => PERSON_ROLES.has(w))) return undefined;
  const index = model.lines.findIndex((l) => l.text.trim() !== '');
  const line = model.lines[index];
  if (!line || model.pairs.some((p) => p.line === index) || model.tables.some((t) => t.line === index))
    return undefined;
  const text = line.text.replace(/^\s*#+\s*/, '').trim();
  if (text.split(/\s+/).length > 12 || /[.,!?:;]$/.test(text) || /^(?:dear|hello|hi)\b/i.test(text)) return undefined;
  return { value: text, confidence: 0.6 };
}

/** "Ticket #48213", "order no. 58213", "arXiv:2401.01234": a code with a digit right after the field's name, for identifier-like fields. */
export function codeAfterLabel(
  model: DocumentModel,
  field: FieldSpec,
): { value: unknown; confidence: number } | undefined {
  const name = field.variants[0] ?? [];
  if (!name.some((w) => CODE_WORDS.has(w))) return undefined;
  const names = proseWords(field);
  // The code is read in a lookahead so that a code that is itself a word does not hide the next label.
  const pattern = /([\p{L}]+)(?=\s*(?:#|no\.|number|:)\s*([\p{L}\p{N}][\p{L}\p{N}./-]*))/giu;
  for (const m of model.text.matchAll(pattern)) {
    const code = m[2]!.replace(/[.]+$/, '');
    if (!/\d/.test(code) || !names.some((n) => n.some((w) => wordsMatch(normalise(m[1]!), w)))) continue;
    return { value: code, confidence: 0.6 };
  }
  return undefined;
}

/** "our speaker is Dr. Helen Okoye", "the agency AEMET": the run of capitalised words right after the field's name. */
export function properNameAfterLabel(
  model: DocumentModel,
  field: FieldSpec,
): { value: unknown; confidence: number } | undefined {
  const names = proseWords(field);
  const tokens = [...model.text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’.&-]*/gu)].map((m) => ({
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
      !breakBetween(model.text, tokens[j - 1]!.end, tokens[j]!.start)
    ) {
      j++;
      if (/\.$/.test(tokens[j - 1]!.word) && !ABBREVIATION.test(tokens[j - 1]!.word)) break; // a sentence ends here
    }
    if (j > from && !breakBetween(model.text, tokens[i]!.end, tokens[from]!.start)) {
      const value = readString(model.text.slice(tokens[from]!.start, tokens[j - 1]!.end))?.value;
      if (value) return { value, confidence: 0.5 };
    }
  }
  return undefined;
}

/** A clause or sentence boundary between two offsets of the text. */
function breakBetween(text: string, from: number, to: number): boolean {
  const gap = text.slice(from, to);
  return (
    /[,;:\n()]/.test(gap) ||
    (/\.\s/.test(gap) && !/\b(?:dr|mr|mrs|ms|prof|st)\.\s*$/i.test(text.slice(Math.max(0, from - 5), from + 1)))
  );
}

/** The field's name words for prose, without the words that only say the value's kind ("date", "number"). */
export function proseWords(field: FieldSpec): string[][] {
  return field.variants.map((v) => {
    const specific = v.filter((w) => !GENERIC_WORDS.has(w));
    return specific.length > 0 ? specific : v;
  });
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
