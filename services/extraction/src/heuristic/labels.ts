import { splitIdentifier, words } from '../core/text.js';

/**
 * Matching a document's labels ("Invoice No.", "Bill To", "Apply by") to a schema's field names
 * (`invoiceNumber`, `customer`, `applicationDeadline`): word by word, with crude stemming, a small
 * synonym table and abbreviations.
 */

/** Words that say nothing about which field is meant. */
const STOP_WORDS = new Set([
  'the',
  'a',
  'an',
  'of',
  'for',
  'in',
  'on',
  'at',
  'your',
  'our',
  'this',
  'its',
  'and',
  'is',
  'are',
]);

/**
 * Words of a field name that only say what kind of value it is (`issueDate`, `orderNumber`): left
 * out when looking for the field's name near a value in prose, where "date" or "number" could be
 * anything's.
 */
export const GENERIC_WORDS = new Set([
  'date',
  'number',
  'name',
  'value',
  'amount',
  'count',
  'type',
  'id',
  'text',
  'total',
]);

/** Units in field names (`weightKg`, `prepMinutes`): not label words, but hints for picking a number. */
export const UNIT_WORDS: Readonly<Record<string, RegExp>> = {
  kg: /^\s*(kg|kilo)/i,
  g: /^\s*(g|grams?)\b/i,
  grams: /^\s*(g|grams?)\b/i,
  ml: /^\s*ml\b/i,
  km: /^\s*km\b/i,
  kmh: /^\s*km\/h/i,
  gb: /^\s*gb\b/i,
  wh: /^\s*wh\b/i,
  c: /^\s*°?\s*c\b/i,
  sqm: /^\s*(m²|m2|sqm)/i,
  minutes: /^\s*(min|minutes?)\b/i,
  hours: /^\s*(h|hrs?|hours?)\b/i,
  days: /^\s*days?\b/i,
  months: /^\s*months?\b/i,
  years: /^\s*(years?|yrs?)\b/i,
  percent: /^\s*%/,
};

/** Groups of words that name the same thing in labels. */
const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['number', 'no', 'nr', 'num', 'id', 'ref', 'reference', 'code'],
  ['email', 'mail', 'contact'],
  ['phone', 'telephone', 'tel', 'mobile'],
  ['date', 'dated', 'day', 'when'],
  ['total', 'amount', 'sum', 'balance'],
  ['due', 'payable'],
  ['deadline', 'due', 'by', 'until', 'closes', 'before'],
  ['company', 'organization', 'organisation', 'employer', 'firm', 'org'],
  ['vendor', 'supplier', 'seller', 'provider', 'merchant'],
  ['customer', 'client', 'buyer', 'bill', 'billed'],
  ['author', 'authors', 'writer', 'by'],
  ['location', 'venue', 'place', 'where'],
  ['salary', 'pay', 'compensation', 'wage', 'rate'],
  ['quantity', 'qty', 'units'],
  ['price', 'cost', 'fee'],
  ['url', 'link', 'website', 'web', 'homepage', 'site', 'download', 'apply'],
  ['start', 'begins', 'from', 'starting'],
  ['end', 'ends', 'finish', 'to'],
  ['description', 'item', 'summary'],
  ['keywords', 'tags', 'topics'],
  ['attendees', 'participants', 'present', 'attendance'],
  ['status', 'state'],
  ['requirements', 'qualifications', 'skills'],
  ['organizer', 'organiser', 'host'],
  ['speaker', 'presenter'],
  ['area', 'size'],
  ['value', 'result', 'reading'],
  ['sender', 'from'],
  ['recipient', 'to'],
  ['publication', 'published', 'publish'],
  ['submission', 'submitted'],
  ['employment', 'contract'],
  ['max', 'maximum', 'up'],
  ['min', 'minimum'],
  ['title', 'headline'],
  ['doi', 'identifier'],
  ['os', 'operating'],
  ['ram', 'memory'],
  ['recommendation', 'verdict', 'decision'],
];

const SYNONYMS = new Map<string, Set<string>>();
for (const group of SYNONYM_GROUPS) {
  for (const word of group) {
    const set = SYNONYMS.get(word) ?? new Set<string>();
    for (const other of group) set.add(other);
    SYNONYMS.set(word, set);
  }
}

/** Equal, synonyms, singular/plural, or the same stem (a shared prefix of 5+ letters, or one word is a 4+ letter prefix of the other). */
export function wordsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  if (SYNONYMS.get(a)?.has(b)) return true;
  if (a.length >= 3 && b.length >= 3 && a.replace(/e?s$/, '') === b.replace(/e?s$/, '')) return true;
  const shorter = Math.min(a.length, b.length);
  let common = 0;
  while (common < shorter && a[common] === b[common]) common++;
  return common >= 5 || (common >= 4 && common === shorter);
}

/** Words of a label as written in a document ("Invoice No.", "PO #"), without stop words and digits. */
export function labelWords(label: string): string[] {
  const expanded = label
    .replace(/#/g, ' number ')
    .replace(/\bno\./gi, ' number ')
    .replace(/e-mail/gi, 'email');
  return words(expanded).filter((w) => !STOP_WORDS.has(w) && !/^\d+$/.test(w));
}

/** Words of a field's name (`customerEmail` → customer, email), units left out. */
export function fieldWords(name: string): string[] {
  return splitIdentifier(name)
    .split(' ')
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w) && !(w in UNIT_WORDS));
}

/**
 * How well a document label names a field: F1 of the label's words found among the field's and the
 * field's words found among the label's (1 = the same words; "Date" for `issueDate` = 0.67).
 */
export function labelScore(label: readonly string[], field: readonly string[]): number {
  if (label.length === 0 || field.length === 0) return 0;
  const precision = label.filter((w) => field.some((f) => wordsMatch(w, f))).length / label.length;
  const recall = field.filter((f) => label.some((w) => wordsMatch(w, f))).length / field.length;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

/**
 * How well the words around a value met in prose name a field: per field word, 1 if the nearest
 * matching context word is at most one word away, 0.1 less per word further (at least 0.5), 0 if
 * none matches; averaged over the field's words. `context` is ordered nearest first.
 */
export function contextScore(context: readonly string[], field: readonly string[]): number {
  if (field.length === 0) return 0;
  const per = field.map((f) => {
    const distance = context.findIndex((w) => wordsMatch(w, f));
    return distance < 0 ? 0 : Math.max(0.5, 1 - 0.1 * Math.max(0, distance - 1));
  });
  return per.reduce((a, b) => a + b, 0) / field.length;
}
