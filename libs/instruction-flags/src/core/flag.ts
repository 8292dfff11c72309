/**
 * An instruction flag: a passage of stored content that reads as instructions to a model rather
 * than as material about the research. Flags never block anything; they travel with the content
 * so the reading model treats the passage as data.
 */
export type InstructionFlagKind =
  /** Instructions to ignore prior context, a system-prompt override, a role-play jailbreak. */
  | 'override'
  /** Function-call syntax (JSON or XML) or tool names aimed at an agent's tools. */
  | 'tool_call'
  /** HTML text a reader does not see (zero font size, text coloured like its background, …). */
  | 'hidden_text'
  /** Zero-width, bidirectional-control or Unicode tag characters. */
  | 'invisible_characters'
  /** A link or image whose address carries placeholders or long encoded data to an unknown host. */
  | 'exfiltration_link';

export interface InstructionFlag {
  kind: InstructionFlagKind;
  /** Offsets into the scanned text (UTF-16 code units, start inclusive, end exclusive), when the passage is in it. */
  start?: number;
  end?: number;
  /** The passage, shortened, with invisible characters shown as code points. */
  excerpt: string;
}

/** At most this many flags per text: enough to say what kinds it holds and where. */
export const MAX_FLAGS = 20;
const EXCERPT_CHARS = 120;

/** The passage as a reader can see it: invisible characters as <U+200B>, at most 120 characters. */
export function excerptOf(passage: string): string {
  let shown = '';
  for (const ch of passage.replace(/\s+/g, ' ').trim()) {
    const cp = ch.codePointAt(0)!;
    shown += isInvisible(cp) ? `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>` : ch;
    if (shown.length >= EXCERPT_CHARS) return `${shown.slice(0, EXCERPT_CHARS - 1)}…`;
  }
  return shown;
}

/** Zero-width, bidirectional control and tag characters: invisible on screen, read by a model. */
export function isInvisible(cp: number): boolean {
  return (
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    cp === 0xfeff ||
    cp === 0x180e ||
    (cp >= 0xe0000 && cp <= 0xe007f)
  );
}
