import type { JsonValue } from './types.js';

const SUMMARY_CHARS = 600;

/**
 * A bounded, readable digest of a step result for get_step_context: its `summary` if it has one,
 * else its JSON, cut at a word boundary near 600 characters with an ellipsis.
 */
export function summarizeResult(result: JsonValue | null): string {
  if (result === null) return '';
  const summary =
    typeof result === 'object' && !Array.isArray(result) && typeof result.summary === 'string'
      ? result.summary
      : JSON.stringify(result);
  if (summary.length <= SUMMARY_CHARS) return summary;
  const cut = summary.slice(0, SUMMARY_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > SUMMARY_CHARS * 0.8 ? cut.slice(0, space) : cut}…`;
}
