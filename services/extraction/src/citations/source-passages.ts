/**
 * A source's text cut into passages a claim can be checked against: its sentences (a very short
 * one joined to the next), each with its character span and the page it starts on. Sentences,
 * not search chunks: a search chunk is 160–300 words (most of an abstract), too coarse to show a
 * model the one sentence that supports or contradicts a claim (ADR 0060). Pure.
 */

export interface SourceUnit {
  /** Page (slide, sheet, section) number, 1-based. */
  number: number;
  /** Where the unit sits in the text (character offsets, end exclusive). */
  start: number;
  end: number;
}

export interface SourcePassage {
  /** The source it comes from: an artifact or a deliverable. */
  sourceId: string;
  /** The passage's number within its source, from 0. */
  index: number;
  text: string;
  start: number;
  end: number;
  /** The page it starts on, when the source has pages. */
  page?: number;
}

/** A sentence of fewer words than this is joined to the next (headings, "Methods.", "P < .001."). */
const MIN_WORDS = 6;

/** Sentence ends: . ! ? (with closing quotes) before a capital, digit or quote; or a blank line. */
const SENTENCE_END =
  /(?<!\b(?:e\.g|i\.e|et al|vs|Fig|Figs|Eq|Ref|No|approx|cf|Dr|Mr|Ms|Inc|Ltd|St))[.!?]["'”’)\]]*(?=\s+["“(]?[\p{Lu}\d])|\n\s*\n/gu;

/** The passages of `text` (its pages given by `units`, when it has them). */
export function sourcePassages(sourceId: string, text: string, units: readonly SourceUnit[] = []): SourcePassage[] {
  const spans: Array<{ start: number; end: number }> = [];
  let from = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    const to = m[0].startsWith('\n') ? m.index : m.index + m[0].length;
    pushTrimmed(text, from, to, spans);
    from = m.index + m[0].length;
  }
  pushTrimmed(text, from, text.length, spans);

  const merged: Array<{ start: number; end: number }> = [];
  let pending: { start: number; end: number } | undefined;
  for (const span of spans) {
    const current = pending ? { start: pending.start, end: span.end } : span;
    if (wordCount(text.slice(current.start, current.end)) < MIN_WORDS) pending = current;
    else {
      merged.push(current);
      pending = undefined;
    }
  }
  if (pending) {
    const last = merged.at(-1);
    if (last) last.end = pending.end;
    else merged.push(pending);
  }
  return merged.map((span, index) => {
    const page = units.find((u) => span.start >= u.start && span.start < u.end)?.number;
    return {
      sourceId,
      index,
      text: text.slice(span.start, span.end),
      start: span.start,
      end: span.end,
      ...(page === undefined ? {} : { page }),
    };
  });
}

function pushTrimmed(text: string, from: number, to: number, into: Array<{ start: number; end: number }>): void {
  const piece = text.slice(from, to);
  const start = from + (piece.length - piece.trimStart().length);
  const end = from + piece.trimEnd().length;
  if (end > start) into.push({ start, end });
}

function wordCount(text: string): number {
  return (text.match(/\S+/g) ?? []).length;
}
