import type { ElicitRequestFormParams } from '@modelcontextprotocol/server';
import type { ElicitationForm, JsonSchema, ToolElicitation } from '@quarry/contracts';

/** An MCP form elicitation request's params (`elicitation/create`, form mode). */
export type FormRequest = Pick<ElicitRequestFormParams, 'message' | 'requestedSchema'>;

/** What the user answered, checked against the form: only the form's fields, blanks left out. */
export type CheckedAnswer = { answer: Record<string, unknown> } | { problem: string };

/**
 * The form a tool call shows the user: the tool's lead, then the arguments its option names,
 * each a paragraph (a list one line per item), empty ones left out.
 */
export function formRequest(spec: ToolElicitation, args: Record<string, unknown>): FormRequest {
  const paragraphs = [spec.lead];
  for (const part of spec.message) {
    const value = args[part.field];
    const lines = part.list
      ? (Array.isArray(value) ? value : []).map((item) => `- ${String(item)}`)
      : typeof value === 'string' && value.trim()
        ? [value.trim()]
        : [];
    if (lines.length === 0) continue;
    paragraphs.push([...(part.heading ? [part.heading] : []), ...lines].join('\n'));
  }
  // The catalogue derived the form from flat primitives only (libs/contracts, elicitation.ts).
  return { message: paragraphs.join('\n\n'), requestedSchema: spec.form as FormRequest['requestedSchema'] };
}

/**
 * Checks an accepted form's content (sent by the client, so untrusted) against the form: an
 * object of the form's fields only, each of its type and bounds, an enum one of its options, the
 * required ones present. A blank optional text field means "not given" (a form UI sends "" for a
 * field left empty). The answer tool validates again; this check speaks of the form, not of it.
 */
export function checkAnswer(form: ElicitationForm, content: unknown): CheckedAnswer {
  if (!content || typeof content !== 'object' || Array.isArray(content))
    return { problem: 'the answer is not an object of the form’s fields' };
  const answer: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(content as Record<string, unknown>)) {
    const schema = form.properties[name];
    if (!schema) return { problem: `"${name}" is not a field of the form` };
    if (value === undefined || value === null || (typeof value === 'string' && !value.trim())) continue;
    const problem = fieldProblem(schema, value);
    if (problem) return { problem: `"${name}" ${problem}` };
    answer[name] = value;
  }
  const missing = (form.required ?? []).filter((name) => !(name in answer));
  if (missing.length > 0) return { problem: `${missing.map((name) => `"${name}"`).join(', ')} must be answered` };
  return { answer };
}

function fieldProblem(schema: JsonSchema, value: unknown): string | undefined {
  const options = schema.oneOf as { const: string }[] | undefined;
  if (options) {
    const allowed = options.map((o) => o.const);
    return allowed.includes(value as string)
      ? undefined
      : `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`;
  }
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return 'must be text';
      const length = [...value].length;
      if (typeof schema.minLength === 'number' && length < schema.minLength)
        return `must have at least ${schema.minLength} characters`;
      if (typeof schema.maxLength === 'number' && length > schema.maxLength)
        return `must have at most ${schema.maxLength} characters`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (schema.type === 'integer' && !Number.isInteger(value)) return 'must be a whole number';
      if (typeof schema.minimum === 'number' && value < schema.minimum) return `must be at least ${schema.minimum}`;
      if (typeof schema.maximum === 'number' && value > schema.maximum) return `must be at most ${schema.maximum}`;
      return undefined;
    }
    default:
      return 'has a type the gateway cannot check';
  }
}
