/**
 * Where a paper's header names its journal, for a text field named for the journal when no
 * labelled line gave it: after "published (online) in" ("Published in JAMA Psychiatry, March
 * 2021", "Published 2021 in Sleep Health"), or as a citation among the lines after the title, the
 * name followed by the year ("The Lancet, June 2020", "Diabetologia (2016)", "N Engl J Med 2019",
 * "…, in Circulation (2023)"). The name is capitalised words without digits or sentence ends.
 */
const NAME = String.raw`\p{Lu}[\p{L}&’'\- ]*?`;
const MONTH = String.raw`(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\p{Ll}*\.?`;
const PUBLISHED_IN = new RegExp(
  String.raw`\b[Pp]ublished\s+(?:online\s+)?(?:ahead\s+of\s+print\s+)?(?:(?:18|19|20)\d{2}\s+)?in\s+(?:the\s+)?(${NAME})(?=\s*(?:[,.(;]|\s+in\s+(?:18|19|20)\d{2}|$))`,
  // Case-sensitive: "in the New England Journal" drops "the", "in The BMJ" keeps it.
  'mu',
);
const CITATION = new RegExp(
  String.raw`^(?:.*?(?:\.\s+|,\s+in\s+(?:the\s+)?))?(${NAME})[,.]?\s*\(?(?:${MONTH}\s+)?(?:18|19|20)\d{2}\b`,
  'u',
);
const NOT_A_NAME = /^(?:in|on|at|by|from|since|during|between|of|the|and|published)$/i;

function plausible(name: string | undefined): string | undefined {
  const trimmed = name?.trim();
  if (!trimmed || NOT_A_NAME.test(trimmed) || trimmed.split(/\s+/).length > 8) return undefined;
  return trimmed;
}

/** The journal's name and how directly it was named (0.8 after "published in", 0.7 from a citation line). */
export function journalName(text: string): { value: string; confidence: number } | undefined {
  const published = plausible(PUBLISHED_IN.exec(text)?.[1]);
  if (published) return { value: published, confidence: 0.8 };
  for (const line of text.split('\n').slice(1, 4)) {
    const cited = plausible(CITATION.exec(line.trim())?.[1]);
    if (cited) return { value: cited, confidence: 0.7 };
  }
  return undefined;
}
