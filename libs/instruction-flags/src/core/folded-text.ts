import { isInvisible } from './flag.js';

/**
 * Text folded the way an obfuscated instruction is undone before matching: compatibility forms
 * (NFKC: full-width letters, ligatures), invisible characters dropped, look-alike Cyrillic and
 * Greek letters and digits standing in for letters ("1gn0re") read as Latin, letters spaced
 * apart ("i g n o r e") joined, lower case, runs of white space as one space. `at[i]` is where
 * the folded character `i` came from in the original, so a match maps back to a span.
 */
export interface FoldedText {
  text: string;
  at: Int32Array;
}

const LOOK_ALIKES: Record<string, string> = {
  а: 'a',
  е: 'e',
  о: 'o',
  р: 'p',
  с: 'c',
  х: 'x',
  у: 'y',
  і: 'i',
  ј: 'j',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  А: 'a',
  В: 'b',
  Е: 'e',
  К: 'k',
  М: 'm',
  Н: 'h',
  О: 'o',
  Р: 'p',
  С: 'c',
  Т: 't',
  Х: 'x',
  І: 'i',
  α: 'a',
  ο: 'o',
  ε: 'e',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  Α: 'a',
  Β: 'b',
  Ε: 'e',
  Ι: 'i',
  Κ: 'k',
  Μ: 'm',
  Ν: 'n',
  Ο: 'o',
  Ρ: 'p',
  Τ: 't',
  Χ: 'x',
  Υ: 'y',
  Ζ: 'z',
};
const LEET: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's' };

/**
 * Rewrites every match of `pattern` (global) in `src`: `replace` gives the new text and, for each
 * of its characters, the offset within the match it stands for. Unmatched text is copied in
 * slices, so ASCII text with nothing to fold costs a few regex scans, not per-character work.
 */
function rewrite(
  src: FoldedText,
  pattern: RegExp,
  replace: (match: string) => { text: string; from: (j: number) => number },
): FoldedText {
  const matches = [...src.text.matchAll(pattern)];
  if (matches.length === 0) return src;
  const replaced = matches.map((m) => replace(m[0]));
  const length = src.text.length + replaced.reduce((n, r, k) => n + r.text.length - matches[k]![0].length, 0);
  const at = new Int32Array(length);
  const parts: string[] = [];
  let last = 0;
  let out = 0;
  matches.forEach((m, k) => {
    parts.push(src.text.slice(last, m.index));
    at.set(src.at.subarray(last, m.index), out);
    out += m.index - last;
    const { text, from } = replaced[k]!;
    parts.push(text);
    for (let j = 0; j < text.length; j++) at[out++] = src.at[m.index + from(j)]!;
    last = m.index + m[0].length;
  });
  parts.push(src.text.slice(last));
  at.set(src.at.subarray(last), out);
  return { text: parts.join(''), at };
}

const same = (text: string) => ({ text, from: (j: number) => j });

/** Non-ASCII characters: invisible ones dropped, NFKC, look-alikes as Latin. */
function foldUnicode(match: string) {
  let text = '';
  const from: number[] = [];
  for (let i = 0; i < match.length; i++) {
    const cp = match.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    if (!isInvisible(cp)) {
      for (const ch of String.fromCodePoint(cp).normalize('NFKC').split('')) {
        text += LOOK_ALIKES[ch] ?? ch;
        from.push(i);
      }
    }
    i += width - 1;
  }
  return { text, from: (j: number) => from[j]! };
}

export function foldText(original: string): FoldedText {
  const identity = new Int32Array(original.length);
  for (let i = 0; i < original.length; i++) identity[i] = i;
  let folded: FoldedText = { text: original, at: identity };
  folded = rewrite(folded, /[\u0080-\uffff]+/g, foldUnicode);
  // Digits and signs read as letters only inside a word ("1gn0re"), never in a number ("2023").
  folded = rewrite(folded, /(?<=[A-Za-z])[013457@$](?![0-9])|(?<![0-9A-Za-z])[013457@$](?=[A-Za-z])/g, (m) =>
    same(LEET[m]!),
  );
  // Letters spaced apart: five or more single letters, each followed by one separator. Latin
  // only: look-alike letters are Latin by now, and an ASCII pattern is several times faster.
  folded = rewrite(folded, /(?<![A-Za-z0-9])(?:[A-Za-z][ .\-_*·]){4,}[A-Za-z](?![A-Za-z0-9])/g, (m) => ({
    text: m.replace(/[^A-Za-z]/g, ''),
    from: (j: number) => j * 2,
  }));
  // White space as one space (single spaces, the common case, are not rewritten).
  folded = rewrite(folded, / \s+|[^\S ]\s*/g, () => same(' '));
  const lower = folded.text.toLowerCase();
  if (lower.length === folded.text.length) folded = { text: lower, at: folded.at };
  else folded = rewrite(folded, /[\u0080-\uffff]/g, (m) => ({ text: m.toLowerCase(), from: () => 0 }));
  if (folded.text.startsWith(' ')) folded = { text: folded.text.slice(1), at: folded.at.subarray(1) };
  return folded;
}

/** The span of the original that folded characters `start`…`end` (exclusive) came from. */
export function originalSpan(folded: FoldedText, start: number, end: number, original: string): [number, number] {
  const from = folded.at[start] ?? 0;
  const last = folded.at[Math.max(start, end - 1)] ?? from;
  const cp = original.codePointAt(last);
  return [from, last + (cp !== undefined && cp > 0xffff ? 2 : 1)];
}
