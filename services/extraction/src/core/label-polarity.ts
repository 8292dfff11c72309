import type { Span } from '../types.js';
import { prepare } from './prepared-source.js';
import { indexOfWords, originalSpan, splitIdentifier, words } from './text.js';

const NEGATIVE = new Set([
  'no',
  'not',
  'false',
  'none',
  'without',
  'never',
  'non',
  'unavailable',
  'excluded',
  'nope',
  'n',
]);
const POSITIVE = new Set(['yes', 'true', 'included', 'available', 'y', 'yep', 'provided', 'offered', 'required']);
const NEGATIVE_MARKS = /[✗✘❌☐]/u;
const POSITIVE_MARKS = /[✓✔✅☑☒]/u;
/** Words dropped from a boolean field's name: `isRemote` is about "remote". */
const BOOLEAN_PREFIXES = new Set([
  'is',
  'has',
  'can',
  'should',
  'allows',
  'allow',
  'includes',
  'include',
  'with',
  'requires',
]);

/**
 * `Remote: yes`, "this role is not remote", "pets allowed: no", "a remote role": the polarity of
 * each mention of a label, read from the words next to it: up to 3 before and 3 after, within the
 * sentence and the clause (a comma, `and`, `but`, `or` ends the window), so "entry is free and no
 * registration is required" is positive for "free" and negative for "registration".
 */
export function labelPolarity(
  sourceText: string,
  labels: readonly string[],
): { polarity: 'true' | 'false' | 'mention'; span: Span }[] {
  const source = prepare(sourceText);
  const out: { polarity: 'true' | 'false' | 'mention'; span: Span }[] = [];
  for (const label of labels) {
    const phrase = splitIdentifier(label)
      .split(' ')
      .filter((w, i, all) => !(i === 0 && all.length > 1 && BOOLEAN_PREFIXES.has(w)))
      .join(' ');
    if (phrase.length < 3) continue;
    for (
      let at = indexOfWords(source.norm.text, phrase);
      at >= 0;
      at = indexOfWords(source.norm.text, phrase, at + 1)
    ) {
      const span = originalSpan(source.norm, at, at + phrase.length);
      const sentence = sentenceAround(source.text, span);
      const before = source.text.slice(sentence.start, span.start).split(CLAUSE_BREAK).pop() ?? '';
      const after = source.text.slice(span.end, sentence.end).split(CLAUSE_BREAK)[0] ?? '';
      const near = [...words(before).slice(-3), ...words(after).slice(0, 3)];
      const marks = before.slice(-4) + after.slice(0, 4);
      const negative = near.some((w) => NEGATIVE.has(w)) || NEGATIVE_MARKS.test(marks);
      const positive = near.some((w) => POSITIVE.has(w)) || POSITIVE_MARKS.test(marks);
      out.push({
        polarity: negative ? 'false' : positive ? 'true' : 'mention',
        span: { start: sentence.start, end: sentence.end },
      });
    }
  }
  return out;
}

const CLAUSE_BREAK = /,|\b(?:and|but|or|while|whereas)\b/i;

/** The line, or the sentence within a line, around a span. */
function sentenceAround(text: string, span: Span): { text: string; start: number; end: number } {
  let start = span.start;
  while (start > 0 && !/[\n.!?;]/.test(text[start - 1]!)) start--;
  let end = span.end;
  while (end < text.length && !/[\n.!?;]/.test(text[end]!)) end++;
  while (start < end && /\s/.test(text[start]!)) start++;
  return { text: text.slice(start, end), start, end };
}
