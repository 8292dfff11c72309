/**
 * Calendar dates as people write them, read into ISO `YYYY-MM-DD`. Recognised (English month
 * names, full or abbreviated, optional weekday, ordinal suffixes and commas):
 *
 * - `2024-03-05`, `2024/03/05`, `2024-03-05T10:00:00Z` (the date part)
 * - `March 5, 2024`, `Mar. 5th 2024`
 * - `5 March 2024`, `5th of March, 2024`
 * - ranges `September 18–20, 2024`, `18–20 September 2024` (two mentions: start and end)
 * - `05/03/2024`, `05.03.2024`, `05-03-2024`, two-digit years as 20YY: read day first (05/03/2024
 *   is 5 March, the international convention) unless the second number cannot be a month
 *   (`03/25/2024` is 25 March). When both could be the month and they differ, the mention is
 *   `ambiguous` and also carries the month-first reading, so a value is grounded by either reading
 *   (at a lower weight) and the heuristic extractor can prefer the convention the rest of the
 *   document shows.
 */

export interface DateMention {
  /** ISO date of the preferred reading. */
  iso: string;
  /** ISO date of the other reading of an ambiguous numeric date (day/month swapped). */
  alternative?: string;
  start: number;
  end: number;
  /** True for a numeric date whose day and month could be swapped. */
  ambiguous: boolean;
  /** True when the reading is month-first (03/25/2024), i.e. evidence of the US convention. */
  monthFirst: boolean;
  /** For a range (`September 18–20, 2024`): which end this mention is; both span the whole range. */
  rangePart?: 'start' | 'end';
}

const MONTHS: Readonly<Record<string, number>> = {
  january: 1,
  jan: 1,
  february: 2,
  feb: 2,
  march: 3,
  mar: 3,
  april: 4,
  apr: 4,
  may: 5,
  june: 6,
  jun: 6,
  july: 7,
  jul: 7,
  august: 8,
  aug: 8,
  september: 9,
  sept: 9,
  sep: 9,
  october: 10,
  oct: 10,
  november: 11,
  nov: 11,
  december: 12,
  dec: 12,
};

const MONTH =
  '(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '(\\d{4})';

const ISO = /(?<![\p{N}\p{L}])(\d{4})([-/])(\d{1,2})\2(\d{1,2})(?![\p{N}])/gu;
const MONTH_FIRST = new RegExp(`(?<![\\p{L}])${MONTH}\\s+${DAY},?\\s+${YEAR}(?![\\p{N}])`, 'giu');
const DAY_FIRST = new RegExp(`(?<![\\p{N}\\p{L}])${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}(?![\\p{N}])`, 'giu');
const MONTH_RANGE = new RegExp(`(?<![\\p{L}])${MONTH}\\s+${DAY}\\s*[–—-]\\s*${DAY},?\\s+${YEAR}(?![\\p{N}])`, 'giu');
const DAY_RANGE = new RegExp(
  `(?<![\\p{N}\\p{L}])${DAY}\\s*[–—-]\\s*${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}(?![\\p{N}])`,
  'giu',
);
const NUMERIC = /(?<![\p{N}\p{L}./-])(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\p{N}]|[./-]\p{N})/gu;

function isoDate(year: number, month: number, day: number): string | undefined {
  if (!Number.isInteger(year) || month < 1 || month > 12 || day < 1) return undefined;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > days) return undefined;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export function findDates(text: string): DateMention[] {
  const out: DateMention[] = [];
  const add = (iso: string | undefined, start: number, end: number, extra: Partial<DateMention> = {}) => {
    if (!iso || out.some((d) => d.start < end && start < d.end)) return;
    out.push({ iso, start, end, ambiguous: false, monthFirst: false, ...extra });
  };
  const addRange = (year: number, month: number, from: number, to: number, start: number, end: number) => {
    const first = isoDate(year, month, from);
    const last = isoDate(year, month, to);
    if (!first || !last || to <= from || out.some((d) => d.start < end && start < d.end)) return;
    out.push({ iso: first, start, end, ambiguous: false, monthFirst: false, rangePart: 'start' });
    out.push({ iso: last, start, end, ambiguous: false, monthFirst: false, rangePart: 'end' });
  };
  for (const m of text.matchAll(MONTH_RANGE))
    addRange(+m[4]!, MONTHS[m[1]!.toLowerCase()]!, +m[2]!, +m[3]!, m.index, m.index + m[0].length);
  for (const m of text.matchAll(DAY_RANGE))
    addRange(+m[4]!, MONTHS[m[3]!.toLowerCase()]!, +m[1]!, +m[2]!, m.index, m.index + m[0].length);
  for (const m of text.matchAll(ISO)) add(isoDate(+m[1]!, +m[3]!, +m[4]!), m.index, m.index + m[0].length);
  for (const m of text.matchAll(MONTH_FIRST))
    add(isoDate(+m[3]!, MONTHS[m[1]!.toLowerCase()]!, +m[2]!), m.index, m.index + m[0].length);
  for (const m of text.matchAll(DAY_FIRST))
    add(isoDate(+m[3]!, MONTHS[m[2]!.toLowerCase()]!, +m[1]!), m.index, m.index + m[0].length);
  for (const m of text.matchAll(NUMERIC)) {
    const a = +m[1]!;
    const b = +m[3]!;
    const year = m[4]!.length === 2 ? 2000 + +m[4]! : +m[4]!;
    const dayFirst = isoDate(year, b, a);
    const monthFirst = isoDate(year, a, b);
    if (dayFirst && monthFirst && a !== b)
      add(dayFirst, m.index, m.index + m[0].length, { ambiguous: true, alternative: monthFirst });
    else if (dayFirst) add(dayFirst, m.index, m.index + m[0].length);
    else if (monthFirst) add(monthFirst, m.index, m.index + m[0].length, { monthFirst: true });
  }
  return out.sort((x, y) => x.start - y.start);
}

/** The date a whole string states (surrounding whitespace and punctuation allowed), or undefined. */
export function parseDate(value: string): DateMention | undefined {
  const trimmed = value.trim();
  const found = findDates(trimmed);
  if (found.length !== 1) return undefined;
  const only = found[0]!;
  const rest = trimmed.slice(0, only.start) + trimmed.slice(only.end);
  // Allow a weekday name and a time after the date (`Tue, 2024-03-05 10:00`), nothing else.
  const leftover = rest
    .replace(/\b(mon|tue|wed|thu|fri|sat|sun)[a-z]*\b/gi, '')
    .replace(/T?\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2}|am|pm)?/gi, '');
  return /^[\s,.()]*$/.test(leftover) ? only : undefined;
}
