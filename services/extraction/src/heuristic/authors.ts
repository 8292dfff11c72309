/**
 * The author line of a paper's header, for a list field named for authors when no labelled line
 * gave it: one of the lines right after the title, read up to its first sentence boundary
 * ("Aiko Tanaka, Marcus Feld and Priya Raman. Published in …", "By A and B, in BMJ …", "A and B,
 * for the … collaborators"), split at commas, semicolons and "and". Taken only when every part
 * is shaped like a personal name (two to four capitalised words, name particles allowed, no
 * digits): a journal line ("The Lancet, 2020") or a sentence is not an author line.
 */
const PARTICLES = new Set([
  'van',
  'von',
  'de',
  'da',
  'del',
  'der',
  'den',
  'di',
  'du',
  'dos',
  'la',
  'le',
  'bin',
  'al',
  'ten',
]);
const NAME_WORD = /^(?:\p{Lu}[\p{L}’'.-]*|\p{Lu}\.)$/u;
const BOUNDARY = /\.\s|\.$|,?\s+(?:in|for|on behalf of)\s+|\s+\(|\s*[:|]\s/u;
const PART = /\s*[,;]\s*(?:and\s+)?|\s+(?:and|&)\s+/u;

function isName(part: string): boolean {
  const words = part.split(/\s+/).filter(Boolean);
  if (words.length < 2 || words.length > 4) return false;
  if (!NAME_WORD.test(words[0]!) || !NAME_WORD.test(words[words.length - 1]!)) return false;
  return words.every((w) => NAME_WORD.test(w) || PARTICLES.has(w.toLowerCase()));
}

/** The names of the author line among the lines after the first (the title), or undefined. */
export function authorLine(text: string): string[] | undefined {
  const lines = text.split('\n').map((l) => l.trim());
  for (const line of lines.slice(1, 3)) {
    const head = line.replace(/^by\s+/i, '');
    const cut = BOUNDARY.exec(head);
    const names = (cut ? head.slice(0, cut.index) : head).split(PART).map((p) => p.trim());
    if (names.length > 0 && names.every(isName)) return names;
  }
  return undefined;
}
