/**
 * Shapes of the values a research text names by form rather than by label: a p-value after
 * "P =", a trial registration (core/field-fit.ts), a DOI. Non-global: callers
 * that want every match make a global copy (`everyMatch`).
 */
export const P_VALUE = /\bP\s*(?:=|<|≤)\s*(0?\.\d+)/i;
export { REGISTRATION } from '../core/field-fit.js';
export const NCT = /\b(NCT\d{8})\b/;
export const DOI = /\b(10\.\d{4,9}\/[^\s;,]*[^\s;,.)])/;

/** The distinct first groups (or whole matches) of `pattern` in `text`. */
export function distinctMatches(text: string, pattern: RegExp): Set<string> {
  const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  return new Set([...text.matchAll(global)].map((m) => m[1] ?? m[0]));
}

/** Words saying a count is of people screened or approached, not of those enrolled. */
export const SCREENED = /\b(?:screened|assessed|eligible|approached|invited)\b/i;
