import type { InstructionFlag } from './flag.js';
import { excerptOf } from './flag.js';
import { foldText, originalSpan, type FoldedText } from './folded-text.js';
import { addressedToReader } from './reading-context.js';

/**
 * Instructions aimed at the model that reads the content: to ignore what it was told, to take a
 * new role, to obey "new instructions", to hide things from its user, to leak its prompt or the
 * conversation, to praise what it reviews. Matched on folded text (obfuscation undone), then kept
 * only where addressed to the reader (reading-context.ts), so that research quoting or describing
 * such phrases is not flagged.
 */

interface Phrase {
  pattern: RegExp;
  /** Only as an imperative: the match must open its sentence. */
  imperative: boolean;
}

// Spaced-apart letters fold into one word, so words may be joined: " ?" between them.
const S = ' ?';
const QUALIFIER =
  "(?:all|any|every|each|of|the|your|my|these|those|previous|previously|prior|above|earlier|preceding|former|original|initial|existing|current|system|developer|developers|safety|other|given|provided|old|past|above-mentioned|openai|anthropic|model|assistant's|ai|preset|default|such)";
const NOUN =
  '(?:instructions?|prompts?|directions?|directives?|rules?|guidelines?|guidance|context|messages?|constraints?|commands?|orders?|programming|polic(?:y|ies)|restrictions?|safeguards?|guardrails?|filters?|tasks?|conversation|inputs?|requests?)';
const IGNORE =
  "(?:ignore|disregard|forget|override|bypass|skip|discard|abandon|set aside|do not follow|don't follow|stop following|neglect|overrule|cancel)";
const MODEL =
  '(?:ai|a\\.i\\.|llms?|language models?|large language models?|assistants?|ai assistants?|chatbots?|agents?|ai agents?|bots?|models?|gpt|chatgpt|claude|gemini|copilot|bard|llama)';

const PHRASES: readonly Phrase[] = [
  // Ignore what came before.
  { pattern: new RegExp(`${IGNORE}(?:${S}${QUALIFIER}){0,4}${S}${NOUN}\\b`, 'g'), imperative: true },
  {
    pattern: new RegExp(
      `(?:forget|ignore|disregard)${S}(?:everything|all|anything)(?:${S}(?:you${S}(?:were|have been|'ve been)${S}(?:told|taught|given|instructed)|(?:written${S}|said${S}|stated${S})?(?:above|before|previously|so far|until now)))`,
      'g',
    ),
    imperative: true,
  },
  {
    pattern: new RegExp(
      `${IGNORE}(?:${S}(?:all|everything|the|what is|what's|anything))?${S}(?:above|preceding|foregoing|before this)(?=${S}(?:and\\b|[.,;:!]|$))`,
      'g',
    ),
    imperative: true,
  },
  // Role and system markers, and "new instructions".
  {
    pattern:
      /<\|im_start\|> ?system|<\|system\|>|\[\/?inst\]|<<\/?sys>>|\[system(?: message| prompt| note)?\]|#{2,} ?(?:system|instructions?|new instructions?)\b/g,
    imperative: false,
  },
  {
    pattern: new RegExp(
      `(?:new|updated|revised|real|actual|true|hidden|secret|additional|important|urgent|priority)${S}(?:system${S})?(?:instructions?|prompt|directives?|orders|task)${S}?(?:for${S}${MODEL}${S}?)?:`,
      'g',
    ),
    imperative: true,
  },
  {
    pattern:
      /(?:system|admin(?:istrator)?|developer|security)(?: prompt)? override\b|system (?:prompt|message|note|instruction)s? ?:/g,
    imperative: true,
  },
  // Role-play jailbreaks.
  {
    pattern: new RegExp(
      `you${S}are${S}(?:now|no longer|henceforth|from now on)\\b|from${S}now${S}on,?${S}(?:you|act|respond|answer|behave|pretend|reply|only)\\b|pretend${S}(?:to${S}be|you${S}are|that${S}you${S}are)\\b|act${S}as${S}(?:an?${S})?(?:unfiltered|unrestricted|uncensored|jailbroken|evil|different|new|rogue)\\b|do${S}anything${S}now\\b|(?:enable|enter|activate|switch${S}to|turn${S}on)${S}(?:developer|god|debug|jailbreak|unrestricted|dan|sudo)${S}mode\\b|developer${S}mode${S}(?:enabled|on|activated)\\b`,
      'g',
    ),
    imperative: true,
  },
  // Addressing the model that reads this.
  {
    pattern: new RegExp(
      `(?:if|when|in case)${S}you${S}(?:'re|are)${S}(?:an?${S})?${MODEL}\\b|(?:note|message|instructions?|attention|notice|reminder|memo)${S}(?:to|for)${S}(?:the${S}|any${S}|all${S})?${MODEL}\\b|${MODEL}${S}(?:reading|processing|summari[sz]ing|analy[sz]ing|parsing|reviewing|crawling|scraping|ingesting|evaluating)${S}(?:this|these)\\b|(?:dear|hey|hi|hello|attention|attn)${S}${MODEL}\\b`,
      'g',
    ),
    imperative: false,
  },
  {
    pattern: new RegExp(
      `${MODEL}${S}?[,:]${S}(?:you${S}(?:must|should|will|are)|please|ignore|disregard|forget|do not|don't|respond|reply|say|tell|include|recommend|write|output)\\b`,
      'g',
    ),
    imperative: true,
  },
  // Orders for the summary or answer the reader will give.
  {
    pattern: new RegExp(
      `(?:when|while|if|whenever)${S}(?:you${S})?(?:summari[sz](?:e|es|ing)|asked${S}about|describ(?:e|es|ing)|review(?:s|ing)?|answer(?:s|ing)?${S}questions${S}about|read(?:s|ing)?|process(?:es|ing)?|analy[sz](?:e|es|ing)|discuss(?:es|ing)?)${S}(?:this|the|these)${S}(?:document|page|paper|article|text|study|website|site|email|file|content|section|report|results|findings|data|submission|cv|resume)s?,?${S}(?:you${S}(?:must|should|will)${S})?(?:always${S})?(?:state|say|claim|tell|write|mention|report|recommend|describe|present|conclude|respond|answer|include|add|note|emphasi[sz]e|call|treat|refer)\\b`,
      'g',
    ),
    imperative: true,
  },
  // Hiding things from the user.
  {
    pattern:
      /(?:do not|don't|never) ?(?:tell|inform|mention|reveal|disclose|show|alert|notify|warn|let)(?: ?(?:this|it|that|anything|any of this|about this|(?:this|these|the) ?(?:note|notes|instructions?|message|paragraph|section|text|comment|change)s?))?(?: ?to)? ?(?:the|your)? ?(?:user|human|reader|operator)s?\b|without ?(?:telling|informing|notifying|alerting|asking|warning) ?(?:the|your) ?(?:user|human|operator)\b|(?:the|your) ?user ?(?:must|should) ?not ?(?:know|see|be told|find out|notice)\b/g,
    imperative: true,
  },
  // Leaking the prompt.
  {
    pattern:
      /(?:reveal|print|output|repeat|show|display|leak|dump|tell me|write out|recite|disclose|echo) ?(?:me )?(?:your|the|all|its)?(?: ?(?:full|entire|complete|initial|original|hidden|secret|exact))? ?(?:system ?prompt|system ?message|initial ?prompt|hidden ?prompt|instructions you were given|original ?instructions|developer ?(?:message|instructions)|prompt above|pre-?prompt)\b/g,
    imperative: true,
  },
  // Answering on the document's orders.
  {
    pattern:
      /(?:instead|rather),? ?(?:respond|reply|answer|say|output|write|print|return|tell)\b|(?:respond|reply|answer|output) ?(?:only|solely|exclusively) ?(?:with|using)\b/g,
    imperative: true,
  },
  // Steering a review, a ranking or a recommendation.
  {
    pattern:
      /(?:give|write|provide|output|produce|generate) ?(?:a|an|only)? ?(?:very|highly|extremely)? ?(?:positive|favou?rable|glowing|good|excellent|5-star|five-star) ?(?:review|rating|assessment|evaluation|feedback|summary|score)s?\b|(?:recommend|suggest) ?(?:accept(?:ing|ance)?|hiring|this ?(?:paper|candidate|applicant|product|company|vendor|stock|submission))\b|(?:rate|score|rank|grade) ?(?:this|the) ?(?:paper|candidate|applicant|product|submission|document|resume|cv|company|vendor|article) ?(?:as|highly|very|at the top|first|10|5)\b|do ?not ?(?:highlight|mention|point out|discuss) ?(?:any)? ?(?:negatives|weaknesses|flaws|limitations|criticisms?|concerns)\b/g,
    imperative: true,
  },
  // Sending the conversation away.
  {
    pattern:
      /(?:send|forward|email|e-mail|post|upload|transmit|exfiltrate|leak|submit)(?: ?(?:me|us|them|it|a copy of|copies of|over))? ?(?:the|all|this|your|any|their|a)? ?(?:(?:user'?s?|previous|entire|full|whole|private|current|stored|saved|recent) ?)*(?:conversation|chat ?history|chat ?log|messages|history|context|memory|api ?keys?|credentials|passwords?|secrets?|tokens?|emails?|personal ?data|files|session|cookies|research ?notes)\b/g,
    imperative: true,
  },
];

/** ROT13, which some injections use to slip past a keyword filter; same length, so spans hold. */
const rot13 = (text: string) =>
  text.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 + 13) % 26) + 97));

function scanFolded(folded: FoldedText, original: string, out: InstructionFlag[], note = ''): void {
  for (const { pattern, imperative } of PHRASES) {
    for (const m of folded.text.matchAll(pattern)) {
      const context = { text: folded.text, start: m.index, end: m.index + m[0].length };
      if (!addressedToReader(context, imperative)) continue;
      const [start, end] = originalSpan(folded, context.start, context.end, original);
      const sentenceEnd = original.slice(end).search(/[.!?\n]/);
      const passage = original.slice(start, sentenceEnd < 0 ? end + 80 : end + Math.min(sentenceEnd + 1, 80));
      out.push({ kind: 'override', start, end, excerpt: excerptOf(note + passage) });
    }
  }
}

// Key words of an instruction as ROT13 writes them: without one, a second pass finds nothing.
const ROT13_WORDS =
  /vtaber|qvfertneq|sbetrg|vafgehpgvba|flfgrz|nffvfgnag|cebzcg|bireevqr|erirny|cergraq|vafgrnq|erfcbaq|ercyl|nafjre|fraq|sbejneq|erpbzzraq|lbh ner|abgr gb/;

/** Override flags of `text` (folded by the caller: `foldText(text)`): as written, and as ROT13 undoes it. */
export function overrideFlags(text: string, folded: FoldedText = foldText(text)): InstructionFlag[] {
  const out: InstructionFlag[] = [];
  scanFolded(folded, text, out);
  if (out.length === 0 && ROT13_WORDS.test(folded.text))
    scanFolded({ text: rot13(folded.text), at: folded.at }, text, out, 'rot13: ');
  return out;
}

/**
 * Override flags of text hidden in an encoding (base64 runs of 24+ characters that decode to
 * readable text): the flag's span is the encoded run, its excerpt the decoded instruction.
 */
export function encodedOverrideFlags(text: string): InstructionFlag[] {
  const out: InstructionFlag[] = [];
  for (const m of text.matchAll(/[A-Za-z0-9+/]{24,}={0,2}/g)) {
    const decoded = Buffer.from(m[0], 'base64').toString('utf8');
    if (!/^[\x20-\x7e\n\r\t]+$/.test(decoded) || !/[a-z]{3,} [a-z]{2,}/i.test(decoded)) continue;
    const inner = overrideFlags(decoded);
    if (inner.length > 0) {
      out.push({
        kind: 'override',
        start: m.index,
        end: m.index + m[0].length,
        excerpt: excerptOf(`base64: ${decoded}`),
      });
    }
  }
  return out;
}
