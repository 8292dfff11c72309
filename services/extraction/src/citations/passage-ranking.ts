import { findNumbers, mentionMatches } from '../core/numbers.js';
import { words } from '../core/text.js';
import type { SourcePassage } from './source-passages.js';

/**
 * The passages most likely to hold a claim's evidence, best first: BM25 over the candidate
 * passages (one cited source, or with scope "plan" all the plan's sources), on light stems of the
 * claim's content words, plus a bonus for each of the claim's numbers the passage states. Passages
 * are scored in memory: a source is at most a few thousand sentences, and the index's chunks are
 * too coarse to rank sentences (ADR 0060 gives the recall of both). Pure.
 */

export interface RankedPassage {
  passage: SourcePassage;
  score: number;
}

/** English function words: they say nothing about which passage holds the evidence. */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'a about after all also among an and any are as at be been before being between both but by can could did do does ' +
    'during each for from had has have he her his how if in into is it its more most no nor not of on or other our over ' +
    'per same she should so such than that the their them then there these they this those through to under up was we ' +
    'were what when where which while who whom why will with would'
  ).split(' '),
);

/** BM25's usual constants (Robertson & Zaragoza). */
const K1 = 1.2;
const B = 0.75;
/** What one of the claim's numbers found in a passage adds: about one rare shared word. */
const NUMBER_BONUS = 2;

/** A word cut to a light stem, so "reduced" meets "reduction" and "trials" meets "trial". */
function stem(word: string): string {
  if (/^\d/.test(word) || word.length <= 4) return word;
  return word.replace(/(?:ational|ations?|ingly|edly|ments?|ness|ities|ity|ing|ies|ied|ed|es|ly|s)$/, '').slice(0, 7);
}

function contentStems(text: string): string[] {
  return words(text)
    .filter((w) => !FUNCTION_WORDS.has(w) && !/^\d+$/.test(w))
    .map(stem);
}

export function rankPassages(claim: string, passages: readonly SourcePassage[], limit: number): RankedPassage[] {
  if (passages.length === 0) return [];
  const query = [...new Set(contentStems(claim))];
  const numbers = findNumbers(claim);
  const docs = passages.map((p) => {
    const tf = new Map<string, number>();
    const stems = contentStems(p.text);
    for (const s of stems) tf.set(s, (tf.get(s) ?? 0) + 1);
    return { tf, length: stems.length };
  });
  const avgLength = docs.reduce((sum, d) => sum + d.length, 0) / docs.length || 1;
  const df = new Map<string, number>();
  for (const term of query) df.set(term, docs.filter((d) => d.tf.has(term)).length);

  const ranked = passages.map((passage, i) => {
    const doc = docs[i]!;
    let score = 0;
    for (const term of query) {
      const f = doc.tf.get(term) ?? 0;
      if (f === 0) continue;
      const n = df.get(term)!;
      const idf = Math.log(1 + (passages.length - n + 0.5) / (n + 0.5));
      score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * doc.length) / avgLength));
    }
    if (numbers.length > 0) {
      const stated = findNumbers(passage.text);
      for (const n of numbers) if (stated.some((m) => mentionMatches(n.value, m))) score += NUMBER_BONUS;
    }
    return { passage, score };
  });
  return ranked
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.passage.index - b.passage.index)
    .slice(0, limit);
}
