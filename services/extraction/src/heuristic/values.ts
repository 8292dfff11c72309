import { findDates } from '../core/dates.js';
import { findNumbers, type NumberMention } from '../core/numbers.js';
import { indexOfWords, normalise, splitIdentifier } from '../core/text.js';
import type { FieldSpec } from './fields.js';
import { UNIT_WORDS } from './labels.js';

/**
 * Reading a typed value out of a short text (the value part of a "label: value" line, a table
 * cell, a bullet): the first date, number, email, URL, yes/no or enum value in it, or the text
 * itself for plain strings. Undefined when the text holds nothing of the kind: no guessing.
 */

export interface ReadContext {
  /** The document writes numeric dates month first (it has one like 03/25/2024). */
  monthFirst: boolean;
}

export const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
export const URL_PATTERN = /\bhttps?:\/\/[^\s<>()"'`]+/giu;

const YES = new Set(['yes', 'y', 'true', 'included', 'available', 'allowed', 'required', 'on', 'enabled', 'checked']);
const NO = new Set(['no', 'n', 'false', 'none', 'not', 'excluded', 'unavailable', 'off', 'disabled', 'never', 'nil']);
const MIN_WORDS = new Set(['min', 'minimum', 'from', 'start', 'low', 'lowest', 'lower', 'begin', 'starts']);
const MAX_WORDS = new Set(['max', 'maximum', 'to', 'end', 'high', 'highest', 'upper', 'until', 'ends']);

/** Currency codes an enum may list, and the signs that stand for them in text. */
const CURRENCY_SIGNS: Readonly<Record<string, RegExp>> = {
  USD: /\$|\bUS\$|\bdollars?\b/u,
  EUR: /€|\beuros?\b/iu,
  GBP: /£|\bpounds?\b/iu,
  JPY: /¥|\byen\b/iu,
  INR: /₹|\brupees?\b/iu,
  CHF: /\bCHF\b|\bSwiss francs?\b/iu,
};

export type Read = { value: unknown; start?: number; end?: number };

export function readValue(text: string, field: FieldSpec, context: ReadContext): Read | undefined {
  const t = text.trim();
  if (t.length === 0) return undefined;
  switch (field.kind) {
    case 'date':
      return readDate(t, field, context);
    case 'datetime': {
      const m = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/.exec(t);
      return m ? { value: m[0], start: m.index, end: m.index + m[0].length } : undefined;
    }
    case 'email':
      return first(t, EMAIL, (s) => s.replace(/\.$/, ''));
    case 'url':
      return first(t, URL_PATTERN, (s) => s.replace(/[.,;:!?]+$/, ''));
    case 'number':
    case 'integer':
      return readNumber(t, field);
    case 'boolean':
      return readBoolean(t);
    case 'enum':
      return readEnum(t, field);
    case 'string':
      return typeof field.schema.pattern === 'string' ? readPatterned(t, field.schema.pattern) : readString(t);
    default:
      return undefined;
  }
}

function first(text: string, pattern: RegExp, clean: (s: string) => string): Read | undefined {
  pattern.lastIndex = 0;
  const m = pattern.exec(text);
  pattern.lastIndex = 0;
  return m ? { value: clean(m[0]), start: m.index, end: m.index + clean(m[0]).length } : undefined;
}

/** Qualifier of a field's name that picks one end of a range ("salaryMax", "endDate"). */
export function rangeEnd(field: FieldSpec): 'start' | 'end' | undefined {
  const name = field.variants[0] ?? [];
  if (name.some((w) => MAX_WORDS.has(w))) return 'end';
  if (name.some((w) => MIN_WORDS.has(w))) return 'start';
  return undefined;
}

function readDate(text: string, field: FieldSpec, context: ReadContext): Read | undefined {
  const dates = findDates(text);
  if (dates.length === 0) return undefined;
  const end = rangeEnd(field) === 'end';
  const pick = end ? (dates.find((d) => d.rangePart === 'end') ?? dates[dates.length - 1]!) : dates[0]!;
  const iso = pick.ambiguous && context.monthFirst ? pick.alternative! : pick.iso;
  return { value: iso, start: pick.start, end: pick.end };
}

function readNumber(text: string, field: FieldSpec): Read | undefined {
  let mentions = findNumbers(text);
  if (field.kind === 'integer')
    mentions = mentions.filter((m) => Number.isInteger(m.value) || (m.percent && Number.isInteger(m.value)));
  if (mentions.length === 0) return undefined;
  const withUnit =
    field.units.length > 0 ? mentions.filter((m) => field.units.some((u) => unitFollows(text, m, u))) : [];
  const pool = withUnit.length > 0 ? withUnit : mentions;
  const pick = rangeEnd(field) === 'end' ? pool[pool.length - 1]! : pool[0]!;
  const value = numberValue(pick, field);
  if (field.kind === 'integer' && !Number.isInteger(value)) return undefined;
  return { value, start: pick.start, end: pick.end };
}

/** A mention's value for a field: a percentage becomes a fraction when the field's maximum is ≤ 1. */
export function numberValue(mention: NumberMention, field: FieldSpec): number {
  const maximum = field.schema.maximum;
  return mention.percent && typeof maximum === 'number' && maximum <= 1 ? mention.value / 100 : mention.value;
}

/** Whether a number is followed by the unit a field's name carries (`weightKg`: "1.38 kg"). */
export function unitFollows(text: string, mention: NumberMention, unit: string): boolean {
  if (unit === 'percent') return mention.percent;
  return UNIT_WORDS[unit]!.test(text.slice(mention.end));
}

function readBoolean(text: string): Read | undefined {
  if (/^\s*[✓✔✅☑☒]/u.test(text)) return { value: true };
  if (/^\s*[✗✘❌☐]/u.test(text)) return { value: false };
  const word = normalise(text).split(' ')[0] ?? '';
  if (YES.has(word)) return { value: true };
  if (NO.has(word) || /^n\/a\b/i.test(text)) return { value: false };
  return undefined;
}

/** The enum value the text names (as a word or phrase; `full_time` also as "full time"), earliest first. */
export function readEnum(text: string, field: FieldSpec): Read | undefined {
  const values = field.enumValues ?? [];
  const norm = normalise(text);
  let best: { value: string; at: number; length: number } | undefined;
  for (const value of values) {
    for (const variant of new Set([normalise(value), splitIdentifier(value)])) {
      const at = indexOfWords(norm, variant);
      if (at >= 0 && (!best || at < best.at || (at === best.at && variant.length > best.length)))
        best = { value, at, length: variant.length };
    }
  }
  if (best) return { value: best.value };
  const currencies = values.filter((v) => v in CURRENCY_SIGNS && CURRENCY_SIGNS[v]!.test(text));
  return currencies.length === 1 ? { value: currencies[0] } : undefined;
}

/**
 * For a string with a `pattern` ("^\\d{4}$"): the text if it matches, else the first word-bounded
 * part of it that does ("Visa ending 4421" → "4421"). The pattern passed the schema guard's ReDoS
 * check; only its outer anchors are removed, and it runs on one short value.
 */
function readPatterned(text: string, pattern: string): Read | undefined {
  const cleaned = readString(text);
  try {
    const whole = new RegExp(pattern, 'u');
    if (cleaned && whole.test(String(cleaned.value))) return cleaned;
    const inner = pattern.replace(/^\^/, '').replace(/(?<!\\)\$$/, '');
    const part = new RegExp(`(?<![\\p{L}\\p{N}])(?:${inner})(?![\\p{L}\\p{N}])`, 'u').exec(text);
    return part && whole.test(part[0])
      ? { value: part[0], start: part.index, end: part.index + part[0].length }
      : undefined;
  } catch {
    return undefined;
  }
}

const HONORIFIC = /^(?:mr|mrs|ms|miss|mx)\.?\s+(?=\S+\s+\S)/i;

/** A plain string value: markdown emphasis, an `<address>` and trailing punctuation dropped; Mr/Ms dropped before a full name. */
export function readString(text: string): Read | undefined {
  const value = text
    .replace(/\*\*|__/g, '')
    .replace(/\s*<[^>]*>\s*$/, '')
    .replace(/[\s,;.]+$/, '')
    .replace(HONORIFIC, '')
    .trim();
  return value.length > 0 ? { value } : undefined;
}

/** "A, B and C" / "A; B; C" → items, each read as the item kind; "(qualifiers)" dropped when every item has one. */
export function readList(parts: readonly string[], item: FieldSpec, context: ReadContext): unknown[] {
  let texts = parts.map((p) => p.trim()).filter((p) => p.length > 0);
  if (texts.length >= 2 && texts.every((p) => /\S\s*\([^)]*\)$/.test(p)))
    texts = texts.map((p) => p.replace(/\s*\([^)]*\)$/, ''));
  return texts.map((p) => readValue(p, item, context)?.value).filter((v) => v !== undefined);
}

export function splitList(text: string): string[] {
  return text.split(/\s*[;,]\s*|\s+(?:and|&)\s+/u);
}
