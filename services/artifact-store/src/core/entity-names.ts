/**
 * How entity names, aliases and types are compared: Unicode NFKC (so "ﬁ" and "fi", full- and
 * half-width forms are one), case-folded, whitespace runs collapsed to one space and trimmed.
 * JavaScript has no full case folding; upper-casing before lower-casing comes close to it
 * ("Straße" and "STRASSE" meet at "strasse", final sigma at σ), which plain toLowerCase does not.
 */
export function normaliseName(value: string): string {
  return value.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/** A name as shown: NFKC with its whitespace collapsed, its case kept. */
export function displayName(value: string): string {
  return value.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/** `value` as a LIKE pattern matching what starts with it (its own %, _ and \ taken literally). */
export function prefixPattern(value: string): string {
  return `${value.replace(/[\\%_]/gu, (c) => `\\${c}`)}%`;
}
