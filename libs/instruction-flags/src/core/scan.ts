import { excerptOf, MAX_FLAGS, type InstructionFlag } from './flag.js';
import { exfiltrationLinkFlags } from './exfiltration-links.js';
import { foldText } from './folded-text.js';
import { hiddenHtmlText } from './hidden-html-text.js';
import { invisibleCharacterFlags } from './invisible-characters.js';
import { encodedOverrideFlags, overrideFlags } from './override-phrases.js';
import { toolCallFlags } from './tool-call-lookalikes.js';

/** What is scanned: the stored text, its title, and for an HTML source the page before conversion. */
export interface ScanInput {
  text: string;
  title?: string;
  html?: string;
}

/** Words by which hidden toggled text (a closed menu, a dialog) speaks to a model rather than a reader. */
const TO_A_MODEL =
  /\b(?:ai|llms?|language models?|assistants?|chatgpt|claude|gpt|gemini|copilot|agents?|instructions?|ignore|disregard|system prompt|you must|you should|you are now)\b/i;

function textFlags(text: string): InstructionFlag[] {
  const folded = foldText(text);
  return [
    ...overrideFlags(text, folded),
    ...encodedOverrideFlags(text),
    ...toolCallFlags(text, folded),
    ...invisibleCharacterFlags(text),
    ...exfiltrationLinkFlags(text),
  ];
}

/** Flags in `text` as text of the title: no span (spans are offsets into the text). */
const withoutSpan = ({ kind, excerpt }: InstructionFlag): InstructionFlag => ({ kind, excerpt });

/**
 * Every instruction flag of a stored source, in text order, one per passage and kind, at most
 * MAX_FLAGS. Pure and synchronous: the storing service runs it on what it is about to store.
 */
export function scanInstructions({ text, title, html }: ScanInput): InstructionFlag[] {
  const flags = textFlags(text);
  if (title) flags.push(...textFlags(title).map(withoutSpan));
  if (html) {
    for (const hidden of hiddenHtmlText(html)) {
      if (!hidden.deceptive && !TO_A_MODEL.test(hidden.text) && textFlags(hidden.text).length === 0) continue;
      const at = text.indexOf(hidden.text.slice(0, 60));
      flags.push({
        kind: 'hidden_text',
        ...(at >= 0 ? { start: at, end: at + Math.min(hidden.text.length, text.length - at) } : {}),
        excerpt: excerptOf(hidden.text),
      });
    }
  }
  return dedupe(flags).slice(0, MAX_FLAGS);
}

/** One flag per kind and overlapping passage; spanless flags after those with spans. */
function dedupe(flags: InstructionFlag[]): InstructionFlag[] {
  const sorted = [...flags].sort((a, b) => (a.start ?? Infinity) - (b.start ?? Infinity));
  const out: InstructionFlag[] = [];
  for (const flag of sorted) {
    const overlaps = out.some(
      (kept) =>
        kept.kind === flag.kind &&
        (kept.start === undefined || flag.start === undefined
          ? kept.excerpt === flag.excerpt
          : flag.start < kept.end! && kept.start < flag.end!),
    );
    if (!overlaps) out.push(flag);
  }
  return out;
}
