import { findDates, type DateMention } from './dates.js';
import { findNumbers, type NumberMention } from './numbers.js';
import { normaliseWithMap, type NormalisedText } from './text.js';

/** The source text with its derived views, computed once per text (the last one is kept). */
export interface Source {
  text: string;
  norm: NormalisedText;
  /** Words of the normalised text with their normalised offsets. */
  tokens: { word: string; start: number; end: number }[];
  /** Distinct words by first character (candidates for fuzzy anchors). */
  vocabulary: Map<string, Map<string, number[]>>;
  numbers: NumberMention[];
  dates: DateMention[];
}

let last: Source | undefined;

export function prepare(text: string): Source {
  if (last?.text === text) return last;
  const norm = normaliseWithMap(text);
  const tokens: Source['tokens'] = [];
  const vocabulary: Source['vocabulary'] = new Map();
  let at = 0;
  for (const word of norm.text.split(' ')) {
    if (word.length > 0) {
      const index = tokens.length;
      tokens.push({ word, start: at, end: at + word.length });
      let bucket = vocabulary.get(word[0]!);
      if (!bucket) vocabulary.set(word[0]!, (bucket = new Map()));
      const positions = bucket.get(word);
      if (positions) positions.push(index);
      else bucket.set(word, [index]);
    }
    at += word.length + 1;
  }
  last = { text, norm, tokens, vocabulary, numbers: findNumbers(text), dates: findDates(text) };
  return last;
}
