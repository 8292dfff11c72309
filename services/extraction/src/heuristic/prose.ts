import { findDates } from '../core/dates.js';
import { labelPolarity } from '../core/label-polarity.js';
import { findNumbers } from '../core/numbers.js';
import { indexOfWords, normalise, splitIdentifier, words } from '../core/text.js';
import type { DocumentModel } from './document.js';
import type { FieldSpec } from './fields.js';
import { contextScore, labelWords, wordsMatch } from './labels.js';
import { codeAfterLabel, firstLineTitle, properNameAfterLabel, proseWords, salutation } from './prose-names.js';
import {
  EMAIL,
  numberValue,
  rangeEnd,
  readEnum,
  readList,
  splitList,
  unitFollows,
  URL_PATTERN,
  type ReadContext,
} from './values.js';

/**
 * The offline extractor's last step (see extractor.ts): a field that no labelled line, section or
 * table gave a value, looked for in prose — a date, number, email or URL whose sentence names the
 * field next to it; the only date/email/URL of the document when the schema has exactly one field
 * of that kind; the only enum value the text mentions; a boolean from the words around the field's
 * name; a title from the first line, a name from a salutation, a code or a proper name right after
 * the field's name, a list after "were" or "include".
 */

const CONTEXT_THRESHOLD = 0.5;

/** One document's prose, read field by field; `used` holds the offsets of mentions already taken (shared with the labelled lines). */
export class Prose {
  private titleUsed = false;
  private dates?: ReturnType<typeof findDates>;
  private numbers?: ReturnType<typeof findNumbers>;

  constructor(
    private readonly model: DocumentModel,
    private readonly context: ReadContext,
    private readonly used: Set<number>,
  ) {}

  /** A value for `field` from the prose around its name, or undefined (see the rules above). */
  find(field: FieldSpec, siblings: readonly FieldSpec[]): { value: unknown; confidence: number } | undefined {
    switch (field.kind) {
      case 'date':
      case 'number':
      case 'integer':
      case 'email':
      case 'url':
        return this.nearLabel(field, siblings);
      case 'enum':
        return this.onlyEnumValue(field);
      case 'boolean':
        return this.booleanNearLabel(field);
      case 'string':
        return (
          salutation(this.model, field) ??
          this.title(field) ??
          codeAfterLabel(this.model, field) ??
          properNameAfterLabel(this.model, field)
        );
      case 'list':
        return this.listAfterLabel(field);
      default:
        return undefined;
    }
  }

  private nearLabel(
    field: FieldSpec,
    siblings: readonly FieldSpec[],
  ): { value: unknown; confidence: number } | undefined {
    const mentions = this.mentions(field).filter((m) => !this.used.has(m.start));
    const names = proseWords(field);
    let best: { mention: Mention; score: number } | undefined;
    for (const mention of mentions) {
      const { before, after, own } = this.contextOf(mention.start, mention.end);
      const nearestFirst = [...own, ...[...before].reverse()];
      const near = Math.max(...names.map((n) => contextScore(nearestFirst, n)));
      const far = 0.9 * Math.max(...names.map((n) => contextScore(after, n)));
      let score = Math.max(near, far);
      if (score >= CONTEXT_THRESHOLD && mention.unitMatch) score += 0.25;
      if (score >= CONTEXT_THRESHOLD && (!best || score > best.score)) best = { mention, score };
    }
    if (best) {
      this.used.add(best.mention.start);
      return { value: best.mention.value, confidence: 0.7 };
    }
    // The only one of its kind, for the only field of its kind.
    if (field.kind === 'number' || field.kind === 'integer') return undefined;
    const sameKind = siblings.filter((f) => f.kind === field.kind);
    const distinct = new Set(mentions.map((m) => String(m.value)));
    if (sameKind.length !== 1 || distinct.size !== 1) return undefined;
    this.used.add(mentions[0]!.start);
    return { value: mentions[0]!.value, confidence: 0.5 };
  }

  private mentions(field: FieldSpec): Mention[] {
    const text = this.model.text;
    switch (field.kind) {
      case 'date': {
        const end = rangeEnd(field) === 'end';
        return (this.dates ??= findDates(text))
          .filter((d) => !d.rangePart || d.rangePart === (end ? 'end' : 'start'))
          .map((d) => ({
            value: d.ambiguous && this.context.monthFirst ? d.alternative! : d.iso,
            start: d.start,
            end: d.end,
            unitMatch: false,
          }));
      }
      case 'number':
      case 'integer': {
        const dates = (this.dates ??= findDates(text));
        return (this.numbers ??= findNumbers(text))
          .filter((n) => !dates.some((d) => d.start <= n.start && n.end <= d.end))
          .filter((n) => field.kind === 'number' || Number.isInteger(n.value))
          .map((n) => ({
            value: numberValue(n, field),
            start: n.start,
            end: n.end,
            unitMatch: field.units.some((u) => unitFollows(text, n, u)),
          }));
      }
      case 'email':
      case 'url':
        return [...text.matchAll(field.kind === 'email' ? EMAIL : URL_PATTERN)].map((m) => {
          const value = m[0].replace(/[.,;:!?]+$/, '');
          return { value, start: m.index, end: m.index + value.length, unitMatch: false };
        });
      default:
        return [];
    }
  }

  /** Words before (up to 6) and after (up to 4) a span, within its clause (sentence, up to a comma or semicolon), and the span's own words. */
  private contextOf(start: number, end: number): { before: string[]; after: string[]; own: string[] } {
    const text = this.model.text;
    let from = start;
    while (from > 0 && !/[\n,;]/.test(text[from - 1]!) && !/[.!?]\s/.test(text.slice(from - 2, from))) from--;
    let to = end;
    while (to < text.length && !/[\n,;]/.test(text[to]!) && !/^[.!?](\s|$)/.test(text.slice(to, to + 2))) to++;
    const strip = (ws: string[]) => ws.filter((w) => !/^\d+$/.test(w));
    return {
      before: strip(labelWords(text.slice(from, start))).slice(-6),
      after: strip(labelWords(text.slice(end, to))).slice(0, 4),
      own: strip(words(text.slice(start, end))),
    };
  }

  private onlyEnumValue(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const norm = normalise(this.model.text);
    const named = (field.enumValues ?? []).filter((v) =>
      [normalise(v), splitIdentifier(v)].some((variant) => indexOfWords(norm, variant) >= 0),
    );
    if (named.length === 1) return { value: named[0], confidence: 0.6 };
    if (named.length > 1) return undefined;
    const read = readEnum(this.model.text, field);
    return read ? { value: read.value, confidence: 0.5 } : undefined;
  }

  private booleanNearLabel(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const names = proseWords(field)[0] ?? [];
    const phrases = [names.join(' '), names[0] ?? ''].filter((p) => p.length >= 3);
    for (const phrase of new Set(phrases)) {
      const evidence = labelPolarity(this.model.text, [phrase]);
      const explicit = evidence.find((e) => e.polarity !== 'mention');
      if (explicit) return { value: explicit.polarity === 'true', confidence: 0.75 };
      if (evidence.length > 0) return { value: true, confidence: 0.5 };
    }
    return undefined;
  }

  /** The first line as a title, taken once per document. */
  private title(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    if (this.titleUsed) return undefined;
    const title = firstLineTitle(this.model, field);
    if (title) this.titleUsed = true;
    return title;
  }

  /** "Present were A, B and C": the items after the field's name and a verb or colon, in one sentence. */
  private listAfterLabel(field: FieldSpec): { value: unknown; confidence: number } | undefined {
    const names = proseWords(field);
    const pattern = /([\p{L}]+)\s+(?:were|are|include|includes|including|was)\s+([^.\n]+)/giu;
    for (const m of this.model.text.matchAll(pattern)) {
      const word = normalise(m[1]!);
      if (!names.some((n) => n.some((w) => wordsMatch(word, w)))) continue;
      const items = readList(splitList(m[2]!), field.item!, this.context);
      if (items.length >= 2) return { value: items, confidence: 0.6 };
    }
    return undefined;
  }
}

interface Mention {
  value: unknown;
  start: number;
  end: number;
  unitMatch: boolean;
}
