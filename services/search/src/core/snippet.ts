import { STOP_WORDS, words } from '@quarry/search-index';

/**
 * Plain-text snippet (no highlighting markup) of at most ≈ `maxChars` characters around the
 * densest cluster of query terms. A term matches a word that equals it or shares its first five
 * letters ("indexing" ~ "indexes"), mirroring the stemming the BM25 engines do. Falls back to
 * the start of the text when nothing matches. Cut at word boundaries, "…" marks a cut.
 */
export function snippet(text: string, query: string, maxChars = 240): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= maxChars) return clean;
  const terms = [...new Set(words(query).filter((w) => !STOP_WORDS.has(w)))].map((t) => t.slice(0, 5));
  const tokens = [...clean.matchAll(/\S+/g)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    word: words(m[0])[0] ?? '',
  }));
  const isHit = (w: string): boolean => w.length > 0 && terms.some((t) => w.startsWith(t));

  // Slide a window of words fitting in maxChars; keep the one with the most hits (earliest on ties).
  let best = { from: 0, hits: -1 };
  let to = 0;
  let hits = 0;
  for (let from = 0; from < tokens.length; from++) {
    while (to < tokens.length && tokens[to]!.end - tokens[from]!.start <= maxChars) {
      if (isHit(tokens[to]!.word)) hits++;
      to++;
    }
    if (hits > best.hits) best = { from, hits };
    if (to === from)
      to++; // a single word longer than maxChars
    else if (isHit(tokens[from]!.word)) hits--;
  }
  if (best.hits <= 0) best.from = 0;
  // Start a little before the first hit so the snippet reads as context, not as a fragment.
  const first = tokens.findIndex((t, i) => i >= best.from && isHit(t.word));
  let from = best.hits > 0 && first > 0 ? Math.max(best.from, first - 3) : best.from;
  if (from < 0) from = 0;
  let end = from;
  while (end + 1 < tokens.length && tokens[end + 1]!.end - tokens[from]!.start <= maxChars) end++;
  const start = tokens[from]!.start;
  const stop = Math.min(tokens[end]!.end, start + maxChars);
  return `${start > 0 ? '…' : ''}${clean.slice(start, stop)}${stop < clean.length ? '…' : ''}`;
}
