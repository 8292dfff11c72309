import { similarity } from './text.js';

/** Smallest word-level similarity that counts as a fuzzy match. */
export const FUZZY_THRESHOLD = 0.75;

/**
 * Word-level similarity of two words: 1 if equal; 0.8 if one abbreviates the other (a prefix of
 * ≥ 3 letters: "corp"/"corporation"); else 1 − edit distance / length when that is ≥ 0.75 (a typo or
 * two); else 0. A word with a digit in it (a figure, a code, an identifier) is similar only to
 * itself: one changed digit makes it another value ("NCT04416915" is not "NCT04416951").
 */
export function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (/\d/.test(a) || /\d/.test(b)) return 0;
  const shorter = Math.min(a.length, b.length);
  if (shorter >= 3 && (a.startsWith(b) || b.startsWith(a))) return 0.8;
  if (Math.abs(a.length - b.length) > Math.max(a.length, b.length) / 4) return 0;
  const s = similarity(a, b);
  return s >= FUZZY_THRESHOLD ? s : 0;
}

/**
 * Similarity of a value's words V to a passage's words W: each value word is paired with its most
 * similar unused passage word (greedily), and the sum of the pair similarities is divided by
 * max(|V|, |W|), so missing and extra words both cost.
 */
export function passageSimilarity(
  valueWords: readonly string[],
  passageWords: readonly string[],
  similar = wordSimilarity,
): number {
  const pairs: { i: number; j: number; s: number }[] = [];
  valueWords.forEach((v, i) =>
    passageWords.forEach((w, j) => {
      const s = similar(v, w);
      if (s > 0) pairs.push({ i, j, s });
    }),
  );
  pairs.sort((x, y) => y.s - x.s || x.i - y.i || x.j - y.j);
  const usedV = new Set<number>();
  const usedW = new Set<number>();
  let sum = 0;
  for (const { i, j, s } of pairs) {
    if (usedV.has(i) || usedW.has(j)) continue;
    usedV.add(i);
    usedW.add(j);
    sum += s;
  }
  return sum / Math.max(valueWords.length, passageWords.length);
}
