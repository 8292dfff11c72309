import { excerptOf, type InstructionFlag } from './flag.js';

/**
 * Characters a reader cannot see but a model reads: bidirectional embeddings, overrides and
 * isolates (text shown in another order than it is read), Unicode tag characters (a whole
 * hidden ASCII message: decoded into the excerpt), and zero-width characters inside words
 * (a keyword split so a filter misses it). Left alone: the zero-width joiner and non-joiner
 * where scripts and emoji need them, and a byte-order mark at the start; the marks LRM/RLM of
 * right-to-left text.
 */

const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
const TAGS = /(?:\u{E0001}|[\u{E0020}-\u{E007F}])+/gu;
const ZERO_WIDTH = /[\u200B\u2060\u2061-\u2064\u180E]|(?<=[A-Za-z])[\u200C\u200D](?=[A-Za-z])|(?<!^)\uFEFF/g;

/** Runs of invisible characters closer than this belong to one flag. */
const SAME_RUN = 40;

export function invisibleCharacterFlags(text: string): InstructionFlag[] {
  const out: InstructionFlag[] = [];
  for (const m of text.matchAll(TAGS)) {
    const hidden = [...m[0]].map((c) => String.fromCharCode(c.codePointAt(0)! - 0xe0000)).join('');
    out.push({
      kind: 'invisible_characters',
      start: m.index,
      end: m.index + m[0].length,
      excerpt: excerptOf(`tag characters: ${hidden.replace(/[^\x20-\x7e]/g, '')}`),
    });
  }
  // Bidi controls and zero-width characters, grouped into runs; a lone zero-width space is
  // common in text copied from the web, so zero-width alone needs two in a run.
  const hits = [...text.matchAll(new RegExp(`${BIDI.source}|${ZERO_WIDTH.source}`, 'g'))].map((m) => ({
    at: m.index,
    bidi: BIDI.test(m[0]),
  }));
  let i = 0;
  while (i < hits.length) {
    let j = i;
    while (j + 1 < hits.length && hits[j + 1]!.at - hits[j]!.at <= SAME_RUN) j++;
    const run = hits.slice(i, j + 1);
    if (run.some((h) => h.bidi) || run.length >= 2) {
      const start = run[0]!.at;
      const end = run[run.length - 1]!.at + 1;
      out.push({
        kind: 'invisible_characters',
        start,
        end,
        excerpt: excerptOf(text.slice(Math.max(0, start - 20), Math.min(text.length, end + 40))),
      });
    }
    i = j + 1;
  }
  return out;
}
