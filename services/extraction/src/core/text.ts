/**
 * Text helpers shared by the grounding scorer and the heuristic extractor: a normalised view of a
 * text that remembers where every character came from, words, identifier splitting and a string
 * similarity. All pure.
 */

/**
 * A text lower-cased, without diacritics, with every run of punctuation, symbols and whitespace
 * collapsed to one space, trimmed. `start[i]`/`end[i]` give the original offsets (end exclusive) of
 * normalised character `i`, so a match in the normalised view maps back to a span of the original.
 */
export interface NormalisedText {
  text: string;
  start: number[];
  end: number[];
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const COMBINING_MARK = /\p{M}/gu;

export function normaliseWithMap(original: string): NormalisedText {
  // Characters are collected in an array: appending to a string and testing its end flattens the
  // string each time, which is quadratic on a 200 KB text.
  const out: string[] = [];
  const start: number[] = [];
  const end: number[] = [];
  let space = true; // nothing yet, or the last character out is a space
  const emit = (c: string, from: number, to: number) => {
    out.push(c);
    start.push(from);
    end.push(to);
  };
  let offset = 0;
  for (const char of original) {
    const from = offset;
    offset += char.length;
    const code = char.charCodeAt(0);
    if (code < 128) {
      // Fast path for ASCII, most of any text.
      if ((code >= 48 && code <= 57) || (code >= 97 && code <= 122)) {
        emit(char, from, offset);
        space = false;
      } else if (code >= 65 && code <= 90) {
        emit(String.fromCharCode(code + 32), from, offset);
        space = false;
      } else if (!space) {
        emit(' ', from, offset);
        space = true;
      }
      continue;
    }
    const folded = char.normalize('NFKD').replace(COMBINING_MARK, '').toLowerCase();
    for (const c of folded) {
      if (LETTER_OR_DIGIT.test(c)) {
        emit(c, from, offset);
        space = false;
      } else if (!space) {
        emit(' ', from, offset);
        space = true;
      }
    }
  }
  if (out.length > 0 && out[out.length - 1] === ' ') {
    out.pop();
    start.pop();
    end.pop();
  }
  return { text: out.join(''), start, end };
}

export function normalise(value: string): string {
  return normaliseWithMap(value).text;
}

/** Index of `needle` in `haystack` (both normalised) at word boundaries, from `from`; -1 if none. */
export function indexOfWords(haystack: string, needle: string, from = 0): number {
  if (needle.length === 0) return -1;
  let at = haystack.indexOf(needle, from);
  while (at >= 0) {
    const before = at === 0 || haystack[at - 1] === ' ';
    const after = at + needle.length === haystack.length || haystack[at + needle.length] === ' ';
    if (before && after) return at;
    at = haystack.indexOf(needle, at + 1);
  }
  return -1;
}

/** Original span of normalised characters [from, to). */
export function originalSpan(norm: NormalisedText, from: number, to: number): { start: number; end: number } {
  return { start: norm.start[from]!, end: norm.end[to - 1]! };
}

/** Words of a normalised text. */
export function words(text: string): string[] {
  const n = normalise(text);
  return n.length === 0 ? [] : n.split(' ');
}

/** `invoiceNumber`, `invoice_number`, `Invoice-Number`, `INVOICE_NUMBER` → `invoice number`. */
export function splitIdentifier(name: string): string {
  const spaced = name
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2');
  return normalise(spaced);
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions, so `Jonh` is one
 * edit from `John`).
 */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev2: number[] = [];
  let prev: number[] = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
    }
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/** 1 − distance / longer length: 1 for equal strings, 0 for nothing in common. */
export function similarity(a: string, b: string): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  return 1 - editDistance(a, b) / longer;
}

export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
