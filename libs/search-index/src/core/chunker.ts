import type { Chunk } from '../types.js';

/**
 * Chunk sizes are counted in whitespace-separated words, which needs no tokenizer and is
 * deterministic; English prose averages ≈ 1.3 model tokens per word, so the defaults
 * (160–300 words, 40 words of overlap) give the ≈ 200–400 token chunks the indexes want.
 */
export interface ChunkOptions {
  minWords: number;
  maxWords: number;
  overlapWords: number;
}

const DEFAULT_CHUNK_OPTIONS: Readonly<ChunkOptions> = Object.freeze({
  minWords: 160,
  maxWords: 300,
  overlapWords: 40,
});

interface Word {
  start: number;
  end: number;
}

const SENTENCE_END = /[.!?…]["'”’)\]]*$/;

/**
 * Split text into overlapping chunks. Cuts prefer a paragraph break, then a sentence end,
 * between `minWords` and `maxWords`; the next chunk starts `overlapWords` earlier (moved forward
 * to a sentence start when one is inside the overlap). Each chunk's text is exactly
 * `text.slice(start, end)`, so snippets can point back into the original. Same input, same output.
 */
export function chunkText(text: string, options: Partial<ChunkOptions> = {}): Chunk[] {
  const { minWords, maxWords, overlapWords } = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  if (!(minWords >= 1 && maxWords >= minWords && overlapWords >= 0 && overlapWords < minWords)) {
    throw new RangeError('chunkText: need 1 <= minWords <= maxWords and 0 <= overlapWords < minWords');
  }
  const words: Word[] = [...text.matchAll(/\S+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
  const n = words.length;
  const endsSentence = (i: number): boolean => SENTENCE_END.test(text.slice(words[i]!.start, words[i]!.end));
  const paragraphAfter = (i: number): boolean =>
    i + 1 < n && /\n\s*\n/.test(text.slice(words[i]!.end, words[i + 1]!.start));

  const chunks: Chunk[] = [];
  let from = 0;
  while (from < n) {
    let to = n; // exclusive word index
    if (n - from > maxWords) {
      to =
        cutPoint(from + minWords, from + maxWords, paragraphAfter) ??
        cutPoint(from + minWords, from + maxWords, endsSentence) ??
        from + maxWords;
    }
    const start = words[from]!.start;
    const end = words[to - 1]!.end;
    chunks.push({ chunkNo: chunks.length, text: text.slice(start, end), start, end });
    if (to === n) break;
    let next = to - overlapWords;
    for (let i = next; i < to; i++) {
      if (i > 0 && endsSentence(i - 1)) {
        next = i;
        break;
      }
    }
    from = Math.max(next, from + 1);
  }
  return chunks;
}

/** The largest exclusive end `e` in [lo, hi] whose last word (e - 1) satisfies `ok`. */
function cutPoint(lo: number, hi: number, ok: (wordIndex: number) => boolean): number | undefined {
  for (let e = hi; e >= lo; e--) if (ok(e - 1)) return e;
  return undefined;
}
