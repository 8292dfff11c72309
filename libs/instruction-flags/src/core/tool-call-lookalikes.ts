import { excerptOf, type InstructionFlag } from './flag.js';
import { foldText, originalSpan, type FoldedText } from './folded-text.js';
import { addressedToReader } from './reading-context.js';

/**
 * Text dressed as a tool call, so that a model reading it may take it for one of its own: the
 * XML tags agent frameworks use for calls and results, JSON with a tool name and its arguments,
 * MCP-style qualified tool names (mcp__server__tool), and imperatives to call a named tool.
 * Research about agents shows the same syntax as examples, in code blocks and quotes; there it
 * is not flagged (reading-context.ts), except the XML tags, which no example needs unescaped.
 */

const TAG =
  /<\/?(?:tool_use|tool_call|tool_calls|tool_result|function_calls?|function_results?|invoke|antml:[a-z_]+|parameter name=|tool_response)\b[^>]{0,80}>|<\|(?:tool_call|python_tag|tool_calls_begin|tool_call_begin|plugin)\|>|\[tool_calls\]/g;
const JSON_CALL =
  /\{ ?"(?:name|tool|tool_name|function|recipient_name|action)" ?: ?"[a-z][\w.-]{1,60}" ?, ?"(?:arguments|args|input|parameters|params|action_input)" ?: ?[{["]|"(?:tool_calls|function_call|tool_use)" ?: ?[{[]/g;
const MCP_NAME = /\bmcp__[a-z0-9-]+__[a-z0-9_-]+\b/g;
const CALL_TOOL =
  /(?:call|invoke|use|run|execute|trigger|fire) ?(?:the|your)? ?(?:`?[a-z]+(?:_[a-z]+)+`? ?(?:tool|function|command)?|(?:tool|function) ?`?[a-z]+(?:_[a-z]+)+`?)(?: ?(?:tool|function))?\b/g;

/** Tool-call flags of `text` (folded by the caller: `foldText(text)`). */
export function toolCallFlags(text: string, folded: FoldedText = foldText(text)): InstructionFlag[] {
  const out: InstructionFlag[] = [];
  const add = (start: number, end: number) => {
    const [s, e] = originalSpan(folded, start, end, text);
    out.push({ kind: 'tool_call', start: s, end: e, excerpt: excerptOf(text.slice(s, Math.min(text.length, e + 60))) });
  };
  for (const m of folded.text.matchAll(TAG)) {
    const context = { text: folded.text, start: m.index, end: m.index + m[0].length };
    if (addressedToReader(context, false)) add(context.start, context.end);
  }
  for (const pattern of [JSON_CALL, MCP_NAME]) {
    for (const m of folded.text.matchAll(pattern)) {
      const context = { text: folded.text, start: m.index, end: m.index + m[0].length };
      if (addressedToReader(context, false)) add(context.start, context.end);
    }
  }
  for (const m of folded.text.matchAll(CALL_TOOL)) {
    const context = { text: folded.text, start: m.index, end: m.index + m[0].length };
    if (addressedToReader(context, true)) add(context.start, context.end);
  }
  return out;
}
