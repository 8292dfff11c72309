/**
 * Numbers as people write them: `1,200`, `1 200` (narrow/no-break space), `1'200`, `1.200.000`,
 * `1.200,50` (European), `3,5` (decimal comma), `.41` (no leading zero, as in `P = .41`), `12.5 kg`,
 * `45%`, `3 million`, `12k`, and the
 * words two…twelve, twenty…ninety, hundred. A plain space is not a thousands separator (`SEK 1 245`
 * reads as 1 and 245: "3 4" is as likely two numbers).
 *
 * Conventions (documented because some are guesses): a single `.` followed by 1–2 or 4+ digits is
 * a decimal point, and so is one followed by exactly three digits (`1.200` is 1.2, English
 * convention) unless more groups follow (`1.200.000`) or a decimal comma does (`1.200,50`). A
 * single `,` followed by exactly three digits is a thousands separator (`1,200`), otherwise a
 * decimal comma (`3,5`). Digits joined to other digits by `-` are not numbers (dates, ranges, phone
 * numbers, codes: `2024-03-05`, `INV-2024-001`, `555-1234`), nor are `/`-joined ones that look like
 * a date (`05/03/2024`) or version-like runs (`3.8.0`); in a fraction (`3/5`) only the first is.
 */

export interface NumberMention {
  /** The number's value, multiplier applied (`3 million` → 3000000; `45%` → 45). */
  value: number;
  /** The value as written before any multiplier. */
  base: number;
  multiplier: number;
  percent: boolean;
  /** Offsets of the whole mention (number, multiplier and % sign) in the text. */
  start: number;
  end: number;
  /** The digits as written (`1,200.50`). */
  digits: string;
}

const NUMBER =
  /(?<![\p{L}\p{N}_.,'])(?<!\p{N}[-/])([-−]?)(\d{1,3}(?:[,'\u00a0\u202f]\d{3})+(?:\.\d+)?|\d{1,3}(?:\.\d{3}){2,}(?:,\d+)?|\d{1,3}\.\d{3},\d+|\d+(?:[.,]\d+)?|\.\d+)(?!\p{N})(?![.,]\p{N})(?!-\p{N})(?!\/\p{N}+[-/.]\p{N})(?:\s?(thousand|million|billion|bn|mn|k)(?!\p{L}))?(\s?%|\s(?:percent|per cent)(?!\p{L}))?/gu;

const MULTIPLIERS: Readonly<Record<string, number>> = {
  thousand: 1e3,
  k: 1e3,
  million: 1e6,
  mn: 1e6,
  billion: 1e9,
  bn: 1e9,
};

/** Numbers written as words (not "one", too often a pronoun). */
const NUMBER_WORDS: Readonly<Record<string, number>> = {
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
};
const NUMBER_WORD = new RegExp(`(?<![\\p{L}-])(${Object.keys(NUMBER_WORDS).join('|')})(?![\\p{L}-])`, 'giu');

export function findNumbers(text: string): NumberMention[] {
  const out: NumberMention[] = [];
  for (const m of text.matchAll(NUMBER_WORD)) {
    const value = NUMBER_WORDS[m[1]!.toLowerCase()]!;
    out.push({
      value,
      base: value,
      multiplier: 1,
      percent: false,
      start: m.index,
      end: m.index + m[0].length,
      digits: m[0],
    });
  }
  for (const m of text.matchAll(NUMBER)) {
    const base = parseDigits(m[2]!) * (m[1] ? -1 : 1);
    if (!Number.isFinite(base)) continue;
    const multiplier = m[3] ? MULTIPLIERS[m[3].toLowerCase()]! : 1;
    out.push({
      value: base * multiplier,
      base,
      multiplier,
      percent: m[4] !== undefined,
      start: m.index,
      end: m.index + m[0].length,
      digits: m[1] + m[2]!,
    });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The first number written in a text, or undefined. */
export function parseNumber(text: string): NumberMention | undefined {
  return findNumbers(text)[0];
}

function parseDigits(raw: string): number {
  const lastDot = raw.lastIndexOf('.');
  const lastComma = raw.lastIndexOf(',');
  let s: string;
  if (lastDot >= 0 && lastComma >= 0) {
    // Both present: the later one is the decimal separator.
    s =
      lastComma > lastDot
        ? raw.replace(/[.'\u00a0\u202f]/g, '').replace(',', '.')
        : raw.replace(/[,'\u00a0\u202f]/g, '');
  } else if (lastComma >= 0) {
    s = /^\d{1,3}(,\d{3})+$/.test(raw) ? raw.replace(/,/g, '') : raw.replace(',', '.');
  } else if ((raw.match(/\./g) ?? []).length > 1) {
    s = raw.replace(/\./g, '');
  } else {
    s = raw.replace(/['\u00a0\u202f]/g, '');
  }
  return Number(s);
}

export function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** Whether `value` is what the mention says: its value, its value as a fraction (45% ↔ 0.45), or its base (12k ↔ 12). */
export function mentionMatches(value: number, mention: NumberMention): boolean {
  if (sameNumber(value, mention.value)) return true;
  if (mention.percent && sameNumber(value, mention.value / 100)) return true;
  return mention.multiplier !== 1 && sameNumber(value, mention.base);
}
