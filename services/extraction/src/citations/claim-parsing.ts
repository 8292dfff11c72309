/**
 * The claims of a text that cite something, and what each cites. A claim is a sentence (or a
 * list item) carrying at least one citation: a Quarry link (`quarry://artifacts/{id}`,
 * `quarry://outputs/{id}`, a permalink page `/app/artifacts/{id}`, `/app/outputs/{id}`,
 * `/library/artifact/{id}`), a numbered reference (`[1]`, `[2, 4]`, `[3–5]`) resolved through the
 * text's reference list, a DOI or a web address. The reference list itself is not a claim. Pure.
 */

export type CitationTarget =
  | { kind: 'artifact'; id: string }
  | { kind: 'output'; id: string }
  | { kind: 'doi'; doi: string }
  | { kind: 'url'; url: string };

export interface ParsedClaim {
  /** 1-based, in reading order. */
  claimNo: number;
  /** The sentence with its citation markers taken out: what is to be verified. */
  text: string;
  /** Where the whole sentence sits in the text (character offsets, end exclusive). */
  start: number;
  end: number;
  /** What it cites, each target once; a numbered reference with no entry in the list cites nothing. */
  targets: CitationTarget[];
  /** Numbered references the reference list does not give. */
  unresolvedReferences: number[];
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const QUARRY_LINK = new RegExp(
  `(?:quarry://(artifacts|outputs)/|(?:https?://[^\\s/]+)?/(?:app/(artifacts|outputs)|library/(artifact|output))/)(${UUID})`,
  'gi',
);
const DOI = /\b(?:doi:\s*|https?:\/\/(?:dx\.)?doi\.org\/)?(10\.\d{4,9}\/[^\s"<>]+)/gi;
const URL_PATTERN = /\bhttps?:\/\/[^\s"<>]+/gi;
const NUMBERED = /\[(\d{1,3}(?:\s*[,–-]\s*\d{1,3})*)\]/g;
const MARKDOWN_LINK = /\[([^\]\n]*)\]\(([^)\s]+)\)/g;
const REFERENCES_HEADING =
  /^\s{0,3}(?:#{1,6}\s*)?(?:\*\*)?(references|sources|bibliography|works cited|citations)(?:\*\*)?:?\s*$/im;
const REFERENCE_ENTRY = /^\s*(?:\[(\d{1,3})\]|(\d{1,3})\.)\s+(.+)$/;

/** Trailing punctuation that ends a sentence rather than a link or DOI. */
function trimTrailing(value: string): string {
  let out = value.replace(/[.,;:!?'"”’]+$/, '');
  // A closing parenthesis belongs to the link only when the link opened one.
  while (out.endsWith(')') && (out.match(/\(/g) ?? []).length < (out.match(/\)/g) ?? []).length) out = out.slice(0, -1);
  return out.replace(/[.,;:]+$/, '');
}

/** The targets named anywhere in `text` (links, DOIs, web addresses), each once, in order. */
function targetsIn(text: string): CitationTarget[] {
  const found: Array<{ at: number; target: CitationTarget }> = [];
  const taken: Array<[number, number]> = [];
  const free = (from: number, to: number) => taken.every(([a, b]) => to <= a || from >= b);
  for (const m of text.matchAll(QUARRY_LINK)) {
    const kind = (m[1] ?? m[2] ?? m[3] ?? '').toLowerCase().startsWith('output') ? 'output' : 'artifact';
    found.push({ at: m.index, target: { kind, id: m[4]!.toLowerCase() } });
    taken.push([m.index, m.index + m[0].length]);
  }
  for (const m of text.matchAll(DOI)) {
    if (!free(m.index, m.index + m[0].length)) continue;
    found.push({ at: m.index, target: { kind: 'doi', doi: normaliseDoi(trimTrailing(m[1]!)) } });
    taken.push([m.index, m.index + m[0].length]);
  }
  for (const m of text.matchAll(URL_PATTERN)) {
    if (!free(m.index, m.index + m[0].length)) continue;
    found.push({ at: m.index, target: { kind: 'url', url: normaliseUrl(trimTrailing(m[0])) } });
  }
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.target)
    .filter((t) => {
      const key = targetKey(t);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** One string per target, for sets and maps. */
export function targetKey(target: CitationTarget): string {
  switch (target.kind) {
    case 'artifact':
    case 'output':
      return `${target.kind}:${target.id}`;
    case 'doi':
      return `doi:${target.doi}`;
    case 'url':
      return `url:${target.url}`;
  }
}

/** DOIs are case-insensitive (the DOI handbook): compared lower-cased. */
export function normaliseDoi(doi: string): string {
  return doi.trim().toLowerCase();
}

/** Web addresses compared without scheme, `www.`, fragment and trailing slash. */
export function normaliseUrl(url: string): string {
  return url
    .trim()
    .replace(/#.*$/, '')
    .replace(/^https?:\/\//i, '')
    .replace(/^www\./i, '')
    .replace(/\/+$/, '')
    .toLowerCase();
}

/** The numbered references of the text's reference list: number → what the entry names. */
function referenceList(text: string, from: number): Map<number, CitationTarget[]> {
  const entries = new Map<number, CitationTarget[]>();
  for (const line of text.slice(from).split('\n')) {
    const m = REFERENCE_ENTRY.exec(line);
    if (!m) continue;
    const no = Number(m[1] ?? m[2]);
    if (!entries.has(no)) entries.set(no, targetsIn(m[3]!));
  }
  return entries;
}

function expandNumbers(list: string): number[] {
  const out: number[] = [];
  for (const part of list.split(',')) {
    const range = part.split(/[–-]/).map((s) => Number(s.trim()));
    if (range.length === 2 && range[1]! >= range[0]! && range[1]! - range[0]! < 50) {
      for (let n = range[0]!; n <= range[1]!; n++) out.push(n);
    } else out.push(range[0]!);
  }
  return out;
}

/** Sentence and list-item spans of `text` up to `until`. */
function sentenceSpans(text: string, until: number): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  // A sentence ends at . ! ? (and any closing quote or bracket, and a trailing citation marker)
  // followed by whitespace and a capital, digit, quote or bracket; or at a line break before a
  // list item or a blank line. Abbreviations such as "e.g." and "et al." are not ends.
  const end =
    /(?<!\b(?:e\.g|i\.e|et al|vs|Fig|Figs|Eq|Ref|No|approx|cf|Dr|Mr|Ms|Inc|Ltd|St))([.!?]["'”’)\]]*(?:\s*\[[\d,\s–-]+\])?)(?=\s+["“([]?[\p{Lu}\d])|\n\s*\n|\n(?=\s*(?:[-*•]|\d+\.|#)\s)/gu;
  let from = 0;
  const body = text.slice(0, until);
  for (const m of body.matchAll(end)) {
    const to = m.index + (m[1]?.length ?? 0);
    if (to > from) spans.push({ start: from, end: to });
    from = m.index + m[0].length;
  }
  if (from < body.length) spans.push({ start: from, end: body.length });
  return spans
    .map(({ start, end: e }) => {
      const piece = text.slice(start, e);
      const lead = piece.length - piece.trimStart().length;
      return { start: start + lead, end: start + piece.trimEnd().length };
    })
    .filter((s) => s.end > s.start);
}

/** The claims of `text` that cite something. */
export function parseClaims(text: string): ParsedClaim[] {
  const heading = REFERENCES_HEADING.exec(text);
  const bodyEnd = heading ? heading.index : text.length;
  const references = heading ? referenceList(text, heading.index + heading[0].length) : new Map();
  const claims: ParsedClaim[] = [];
  for (const span of sentenceSpans(text, bodyEnd)) {
    const sentence = text.slice(span.start, span.end);
    const targets: CitationTarget[] = [];
    const unresolved: number[] = [];
    for (const m of sentence.matchAll(NUMBERED)) {
      for (const no of expandNumbers(m[1]!)) {
        const entry = references.get(no);
        if (entry && entry.length > 0) targets.push(...entry);
        else if (!unresolved.includes(no)) unresolved.push(no);
      }
    }
    targets.push(...targetsIn(sentence));
    if (targets.length === 0 && unresolved.length === 0) continue;
    const seen = new Set<string>();
    claims.push({
      claimNo: claims.length + 1,
      text: claimText(sentence),
      start: span.start,
      end: span.end,
      targets: targets.filter((t) => (seen.has(targetKey(t)) ? false : (seen.add(targetKey(t)), true))),
      unresolvedReferences: unresolved,
    });
  }
  return claims;
}

/** A sentence without its citation markers: link texts stay, addresses and numbers in brackets go. */
function claimText(sentence: string): string {
  return (
    sentence
      .replace(MARKDOWN_LINK, (_all, label: string, href: string) =>
        targetsIn(href).length > 0 && !/^\d+$/.test(label.trim()) ? label : '',
      )
      .replace(NUMBERED, '')
      .replace(QUARRY_LINK, '')
      // Punctuation after an address or a DOI ends the sentence: it stays.
      .replace(DOI, (all: string, doi: string) => all.slice(all.length - doi.length + trimTrailing(doi).length))
      .replace(URL_PATTERN, (all: string) => all.slice(trimTrailing(all).length))
      .replace(/\(\s*(?:see|source|sources|doi)?:?\s*[,;]?\s*\)/gi, '')
      .replace(/^\s*(?:[-*•]|\d+\.)\s+/, '')
      .replace(/\s+([.,;:!?])/g, '$1')
      .replace(/\s{2,}/g, ' ')
      .trim()
  );
}
