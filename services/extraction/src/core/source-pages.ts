import type { FieldScores } from './confidence.js';

/** A page (slide, sheet) of a source document: its number and its span in the source text. */
export interface PageSpan {
  number: number;
  start: number;
  end: number;
}

/**
 * The scores with each grounded value's page: the page its span starts on. Without pages (a
 * source text, or a document cut into sections) the scores are returned as they are. Pure.
 */
export function withPages(scores: FieldScores, pages: readonly PageSpan[] | undefined): FieldScores {
  if (!pages || pages.length === 0) return scores;
  const pageAt = (offset: number) => pages.find((p) => offset >= p.start && offset < p.end)?.number;
  return {
    ...scores,
    fields: scores.fields.map((field) => {
      const page = field.span ? pageAt(field.span.start) : undefined;
      return page === undefined ? field : { ...field, page };
    }),
  };
}
