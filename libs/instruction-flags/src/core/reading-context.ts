/**
 * Where a match sits decides whether it is an instruction or a mention of one. Research about
 * prompt injection quotes the very phrases an attack uses ("attacks such as 'ignore previous
 * instructions'"), describes them ("the model is told to ignore its instructions") and lists
 * them in code. An instruction is addressed to the reader: it opens its sentence (after at most
 * a short preface such as "IMPORTANT:" or "AI assistant,"), stands outside quotes and code, and
 * is not introduced as an example. All checks run on folded text (folded-text.ts).
 */

const SENTENCE_END = /[.!?;:\n|>\]}—]/;

/** Words that may precede an imperative in its sentence: prefaces, vocatives, modal frames. */
const PREFACE = new Set(
  (
    'please now so and then first also just kindly important urgent note notice attention attn warning ' +
    'system admin administrator developer assistant ai llm llms model models agent bot chatbot chatgpt claude gpt ' +
    'gemini copilot bard llama dear hey hi hello language large instruction instructions new updated additional ' +
    'you must should will need to shall i want we need ok okay actually wait stop from on always immediately ' +
    'instead rather but however critical priority override hidden secret message for the reader summarizer ' +
    'summariser reviewer any all'
  ).split(' '),
);

/** Words that introduce an example or a description right before the match. */
const MENTION_LEAD =
  /(?:such as|e\.g\.?|i\.e\.?|for example|for instance|like|phrases?|strings?|payloads?|sentences?|called|known as|examples?|containing|contains?|reads?|read|saying|says|said|inject(?:ed|s|ing)?|append(?:ed|s|ing)?|prepend(?:ed|s|ing)?|insert(?:ed|s|ing)?|embed(?:ded|s|ding)?|plant(?:ed|s|ing)?|hid(?:den|e|es|ing)?|include[sd]?|including|the text|template|prompt was|prompts were|instruction was|command|query|queries|input) ?[,:]? ?["“'‘`([]? ?$/;

/** Words of a sentence that talks about attacks rather than making one. */
const ABOUT_ATTACKS =
  /\b(?:attacks?|attackers?|adversar\w*|injections?|jailbreak(?:s|ing)?|benchmarks?|datasets?|corpus|red[- ]team\w*|we (?:test|tested|evaluate|evaluated|study|studied|find|found|show|showed|observe|observed|use|used|measure|measured)|our (?:study|work|experiments?|results|method|paper|evaluation)|researchers|paper|study|studies|vulnerab\w*|defen[cs]es?|mitigat\w*|malicious|exploit\w*|classifiers?|detectors?|example|examples|e\.g\.)\b/;

export interface ReadingContext {
  /** The text the match was found in (folded). */
  text: string;
  start: number;
  end: number;
}

function sentenceStart(text: string, at: number): number {
  for (let i = at - 1; i >= 0; i--) {
    if (SENTENCE_END.test(text[i]!) && !(text[i] === '.' && /[a-z]\.[a-z]/.test(text.slice(i - 1, i + 2))))
      return i + 1;
  }
  return 0;
}

function sentenceEnd(text: string, at: number): number {
  for (let i = at; i < text.length; i++) if (/[.!?\n]/.test(text[i]!)) return i;
  return text.length;
}

/** Inside an open quotation or code span that started in the 200 characters before. */
function quoted({ text, start }: ReadingContext): boolean {
  const before = text.slice(Math.max(0, start - 200), start);
  const count = (ch: string) => before.split(ch).length - 1;
  if (count('"') % 2 === 1 || count('`') % 2 === 1) return true;
  if (before.lastIndexOf('“') > before.lastIndexOf('”')) return true;
  if (before.lastIndexOf('«') > before.lastIndexOf('»')) return true;
  // Single quotes double as apostrophes: count only marks that open (after a space or bracket,
  // before a letter) and marks that close (after a letter or stop, before a space or stop).
  const opening = before.match(/(?:^|[\s([{:,])['‘](?=\s?[\p{L}\p{N}<#[])/gu)?.length ?? 0;
  const closing = before.match(/(?<=[\p{L}\p{N}.!?:)>\]])['’](?=[\s.,;:!?)\]]|$)/gu)?.length ?? 0;
  return opening > closing || /(?:^|[\s(:,])['‘]\s?$/.test(before);
}

/** In a fenced code block: an odd number of ``` fences before. */
function inCodeBlock({ text, start }: ReadingContext): boolean {
  return (text.slice(0, start).match(/```|~~~/g)?.length ?? 0) % 2 === 1;
}

/** Introduced as an example, or in a sentence about attacks, or followed by "attack(s)". */
function mentioned(context: ReadingContext): boolean {
  const { text, start, end } = context;
  if (MENTION_LEAD.test(text.slice(Math.max(0, start - 40), start))) return true;
  if (
    /^[\s"”'’)\]-]*(?:-?style|attacks?|prompts?|payloads?|instructions? attacks?|jailbreaks?)\b/.test(
      text.slice(end, end + 30),
    )
  )
    return true;
  const from = sentenceStart(text, start);
  const sentence = text.slice(from, sentenceEnd(text, end));
  return ABOUT_ATTACKS.test(sentence) && !opensSentence(context);
}

/** The match opens its sentence, after at most a short preface of known words. */
function opensSentence({ text, start }: ReadingContext): boolean {
  const from = sentenceStart(text, start);
  const words = text
    .slice(from, start)
    .replace(/[^\p{L}\p{N}' ]+/gu, ' ')
    .split(' ')
    .filter(Boolean);
  return words.length <= 8 && words.every((w) => PREFACE.has(w) || /^(?:gpt|gpt-?\d)$/.test(w));
}

/** Whether a match is made to the reader (true) or only quoted, coded or described (false). */
export function addressedToReader(context: ReadingContext, needsImperative: boolean): boolean {
  if (quoted(context) || inCodeBlock(context) || mentioned(context)) return false;
  return needsImperative ? opensSentence(context) : true;
}
