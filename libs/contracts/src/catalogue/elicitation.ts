import { type DescField, type DescMethod, ScalarType } from '@bufbuild/protobuf';
import type { Commented } from './comments.js';
import { enumValueNames } from './enums.js';
import { gatewayFieldRole } from './gateway-fields.js';
import type { JsonSchema, ToolDefinition, ToolElicitation } from './types.js';

/** `(quarry.mcp.v1.elicit)` in its proto3 JSON form (only set members present). */
export interface ElicitOption {
  answerTool?: string;
  ask?: { field?: string; title?: string; description?: string }[];
  lead?: string;
  message?: { field?: string; heading?: string }[];
  onAccept?: string;
  onDecline?: string;
}

/** The response type the gateway fills with what the user did (quarry/mcp/v1/elicitation.proto). */
const OUTCOME_TYPE = 'quarry.mcp.v1.ElicitationOutcome';

/** What an MCP form may hold per primitive type (PrimitiveSchemaDefinition), besides title and description. */
const FORM_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  string: ['minLength', 'maxLength', 'format'],
  number: ['minimum', 'maximum'],
  integer: ['minimum', 'maximum'],
  boolean: [],
};
const FORM_FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

/**
 * Resolves an rpc's `(quarry.mcp.v1.elicit)` against its own messages and its answer tool's:
 * the form from the answer tool's input schema (enum options titled by their values' comments),
 * the arguments carried over by name, the message fields and the outcome field. Returns the
 * problems instead when the option does not fit (each in words the proto author can act on).
 */
export function deriveElicitation(
  method: DescMethod,
  option: ElicitOption,
  answer: { tool: ToolDefinition; method: DescMethod } | undefined,
  describe: (desc: Commented) => string | undefined,
): ToolElicitation | string[] {
  const problems: string[] = [];
  const answerTool = option.answerTool ?? '';
  if (!answer) return [`elicit: answer_tool ${JSON.stringify(answerTool)} is not a tool of the catalogue`];
  const own = rootFields(method.input);
  const theirs = rootFields(answer.method.input);

  const properties: Record<string, JsonSchema> = {};
  const asked = new Set<string>();
  for (const { field: name = '', title, description } of option.ask ?? []) {
    const field = answer.method.input.fields.find((f) => f.name === name);
    const schema = field && answer.tool.inputSchema.properties[field.jsonName];
    if (!field || !schema) {
      problems.push(`elicit: ask field "${name}" is not a field of ${answer.method.input.typeName}`);
      continue;
    }
    const property = formProperty(field, schema, describe);
    if (typeof property === 'string') problems.push(`elicit: ask field "${name}" ${property}`);
    else {
      properties[field.jsonName] = {
        ...property,
        ...(title ? { title } : {}),
        ...(description ? { description } : {}),
      };
      asked.add(field.jsonName);
    }
  }
  if (asked.size === 0) problems.push('elicit: the form must ask for at least one field');

  // Shared by name and kind, and not asked: passed on as the model sent it, or else as this
  // rpc replied it (e.g. the id of what the first round created, so the answer goes to exactly that).
  const shared = (fields: Map<string, DescField>) =>
    [...theirs.keys()].filter((name) => {
      const mine = fields.get(name);
      return !asked.has(name) && mine !== undefined && sameKind(mine, theirs.get(name)!);
    });
  const carry = shared(own);
  const carryReply = shared(rootFields(method.output)).filter((name) => !carry.includes(name));
  for (const required of answer.tool.inputSchema.required ?? []) {
    if (!asked.has(required) && !carry.includes(required) && !carryReply.includes(required))
      problems.push(
        `elicit: ${answerTool} requires "${required}", which the form does not ask for and this rpc neither takes nor returns`,
      );
  }

  const message: { field: string; heading?: string; list: boolean }[] = [];
  for (const { field: name = '', heading } of option.message ?? []) {
    const field = method.input.fields.find((f) => f.name === name);
    if (!field || (field.fieldKind !== 'scalar' && field.fieldKind !== 'list') || field.scalar !== ScalarType.STRING) {
      problems.push(`elicit: message field "${name}" must be a string field of ${method.input.typeName}`);
      continue;
    }
    message.push({ field: field.jsonName, ...(heading ? { heading } : {}), list: field.fieldKind === 'list' });
  }

  const outcomes = method.output.fields.filter((f) => f.message?.typeName === OUTCOME_TYPE);
  if (outcomes.length !== 1 || outcomes[0]!.fieldKind !== 'message')
    problems.push(`elicit: the response needs exactly one singular ${OUTCOME_TYPE} field (what the user did)`);
  if (!option.lead?.trim()) problems.push('elicit: the form needs a lead (its first paragraph, for the user)');
  if (!option.onAccept?.trim() || !option.onDecline?.trim())
    problems.push('elicit: on_accept and on_decline tell the model what happens next; both are needed');
  if (problems.length > 0) return problems;

  const required = (answer.tool.inputSchema.required ?? []).filter((name) => asked.has(name));
  return {
    answerTool,
    carry,
    carryReply,
    form: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
    lead: option.lead!.trim(),
    message,
    outcomeField: outcomes[0]!.jsonName,
    onAccept: option.onAccept!.trim(),
    onDecline: option.onDecline!.trim(),
  };
}

/** A message's root fields by JSON name, without the gateway's side-channel fields. */
function rootFields(message: DescMethod['input']): Map<string, DescField> {
  return new Map(message.fields.filter((f) => !gatewayFieldRole(f)).map((f) => [f.jsonName, f]));
}

function sameKind(a: DescField, b: DescField): boolean {
  return (
    a.fieldKind === b.fieldKind &&
    a.scalar === b.scalar &&
    a.enum?.typeName === b.enum?.typeName &&
    a.message?.typeName === b.message?.typeName
  );
}

/** A flat form property from the answer tool's input schema, or why the field cannot be one. */
function formProperty(
  field: DescField,
  schema: JsonSchema,
  describe: (desc: Commented) => string | undefined,
): JsonSchema | string {
  if (field.fieldKind === 'enum') {
    const options = enumValueNames(field.enum).map((value) => {
      const desc = field.enum.values.find((v) => v.number === value.number)!;
      return { const: value.short, title: describe(desc) ?? value.short };
    });
    return { type: 'string', oneOf: options };
  }
  const type = schema.type;
  const keywords = typeof type === 'string' ? FORM_KEYWORDS[type] : undefined;
  if (field.fieldKind !== 'scalar' || !keywords) return 'must be a singular string, number, boolean or enum field';
  const property: Record<string, unknown> = { type };
  for (const keyword of keywords) {
    const value = schema[keyword];
    if (value === undefined) continue;
    if (keyword === 'format' && !FORM_FORMATS.has(String(value))) continue;
    property[keyword] = value;
  }
  return property;
}
