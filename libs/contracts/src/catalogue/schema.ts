import type { DescField, DescMessage } from '@bufbuild/protobuf';
import { enumValueNames, NULL_VALUE_ENUM } from './enums.js';
import { applyConstraints, applyLongPoll } from './field-constraints.js';
import { gatewayFieldRole } from './gateway-fields.js';
import { oneofHint, oneofKeywords } from './oneof-schema.js';
import { enumSchema, mapKeySchema, scalarSchema, wellKnownSchema, type MutableSchema } from './scalar-schema.js';
import type { SchemaSources } from './schema-sources.js';
import type { JsonSchema, ObjectSchema } from './types.js';

/**
 * Proto message → JSON Schema (draft 2020-12) in proto3 JSON naming. Pure: descriptors and
 * option values in, schema out. The rules (see docs/adr/0002-proto-first-tool-catalogue.md):
 *
 * - Objects are closed (`additionalProperties: false`); properties use the json_name.
 * - int32 family → integer with 32-bit bounds; int64 family → integer within ±(2^53 - 1), not
 *   proto3 JSON's string form: models and clients handle numbers, and ids are strings anyway.
 *   The codec accepts numbers and turns 64-bit strings in results back into numbers.
 * - Enums → string enum of short lowercase names (see enums.ts); NullValue → null.
 * - Messages are inlined, except messages that can contain themselves, which go to `$defs`
 *   (the root message is `#`), so recursion always terminates in a local `$ref`.
 * - A oneof allows at most one member in inputs, or exactly one when
 *   `(quarry.mcp.v1.oneof).required` is set (see oneofKeywords); each member's description
 *   says so in words.
 * - Input: a singular scalar or enum without `optional` and outside a oneof is required, and
 *   so is a message, repeated or map field marked `(quarry.mcp.v1.field).required`;
 *   `(quarry.mcp.v1.field)` constraints apply. Output: what the codec always emits (implicit
 *   scalars, repeated, maps, enums whose zero value is a real value) is required; constraints
 *   do not apply, since proto3 uses "" or 0 for "absent" and a client must not reject a
 *   result for that.
 *
 * The parts live beside this file: leaf values (scalars, enums, map keys, well-known types) in
 * scalar-schema.ts, oneof groups in oneof-schema.ts, the field options in field-constraints.ts,
 * and the fields the gateway keeps to itself in gateway-fields.ts.
 */

export type SchemaMode = 'input' | 'output';

export function messageToJsonSchema(root: DescMessage, mode: SchemaMode, sources: SchemaSources): ObjectSchema {
  const state: State = { mode, sources, root, recursive: recursiveMessages(root), defs: new Map() };
  const schema = objectSchema(root, state);
  if (state.defs.size === 0) return schema;
  const defs = [...state.defs].sort(([a], [b]) => (a < b ? -1 : 1));
  return { ...schema, $defs: Object.fromEntries(defs) };
}

interface State {
  readonly mode: SchemaMode;
  readonly sources: SchemaSources;
  readonly root: DescMessage;
  readonly recursive: ReadonlySet<DescMessage>;
  readonly defs: Map<string, JsonSchema>;
}

function objectSchema(message: DescMessage, state: State): ObjectSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of message.fields) {
    if (message === state.root && gatewayFieldRole(field)) continue;
    properties[field.jsonName] = fieldSchema(field, state);
    if (isRequired(field, state)) required.push(field.jsonName);
  }
  const schema: MutableSchema = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  schema.additionalProperties = false;
  if (state.mode === 'input') Object.assign(schema, oneofKeywords(message.oneofs, state.sources));
  return schema as ObjectSchema;
}

function isRequired(field: DescField, state: State): boolean {
  const implicit = field.presence === IMPLICIT_PRESENCE;
  if (state.mode === 'input') {
    if (state.sources.fieldConstraints(field)?.required) return true;
    return implicit && (field.fieldKind === 'scalar' || field.fieldKind === 'enum');
  }
  switch (field.fieldKind) {
    case 'list':
    case 'map':
      return true;
    case 'scalar':
      return implicit;
    case 'enum':
      // The codec leaves out an enum field whose value is *_UNSPECIFIED ("not set").
      return (
        implicit && (field.enum.typeName === NULL_VALUE_ENUM || enumValueNames(field.enum).some((v) => v.number === 0))
      );
    case 'message':
      return false;
  }
}

// FeatureSet.FieldPresence.IMPLICIT: a proto3 singular field without `optional`.
const IMPLICIT_PRESENCE = 2;

function fieldSchema(field: DescField, state: State): JsonSchema {
  let schema: MutableSchema;
  switch (field.fieldKind) {
    case 'scalar':
      schema = scalarSchema(field.scalar);
      break;
    case 'enum':
      schema = enumSchema(field.enum);
      break;
    case 'message':
      schema = messageSchema(field.message, state);
      break;
    case 'list':
      schema = { type: 'array', items: elementSchema(field, state) };
      break;
    case 'map':
      schema = { type: 'object', ...mapKeySchema(field.mapKey), additionalProperties: elementSchema(field, state) };
      break;
  }
  if (state.mode === 'input') {
    applyConstraints(field, schema, state.sources.fieldConstraints(field));
    applyLongPoll(field, schema, state.sources, state.root);
  }
  // Without a field comment, an inlined message or an enum lends its own (never a well-known
  // type's: those are essays on protobuf, not on the field).
  const inlined =
    field.fieldKind === 'message' &&
    !wellKnownSchema(field.message.typeName) &&
    !state.recursive.has(field.message) &&
    field.message !== state.root;
  const description =
    state.sources.describe(field) ??
    (inlined ? state.sources.describe(field.message!) : field.enum ? state.sources.describe(field.enum) : undefined);
  const hint = state.mode === 'input' && field.oneof ? oneofHint(field.oneof, state.sources) : undefined;
  if (description || hint) schema.description = [description, hint].filter(Boolean).join(' ');
  if (field.deprecated) schema.deprecated = true;
  return schema;
}

function elementSchema(field: DescField & { fieldKind: 'list' | 'map' }, state: State): MutableSchema {
  if (field.message) return messageSchema(field.message, state);
  if (field.enum) return enumSchema(field.enum);
  return scalarSchema(field.scalar!);
}

function messageSchema(message: DescMessage, state: State): MutableSchema {
  const wellKnown = wellKnownSchema(message.typeName);
  if (wellKnown) return wellKnown;
  if (message === state.root) return { $ref: '#' };
  if (!state.recursive.has(message)) return { ...objectSchema(message, state) };
  if (!state.defs.has(message.typeName)) {
    state.defs.set(message.typeName, {}); // placeholder: stops the recursion right here
    const schema: MutableSchema = { ...objectSchema(message, state) };
    const description = state.sources.describe(message);
    if (description) schema.description = description;
    state.defs.set(message.typeName, schema);
  }
  return { $ref: `#/$defs/${message.typeName}` };
}

// Messages that can reach themselves through message fields (directly or not). Only these need
// `$defs`; everything else is inlined, which reads better for models.
function recursiveMessages(root: DescMessage): ReadonlySet<DescMessage> {
  const edges = (message: DescMessage) =>
    message.fields.flatMap((f) => (f.message && !wellKnownSchema(f.message.typeName) ? [f.message] : []));
  const reachable = (from: DescMessage) => {
    const seen = new Set<DescMessage>();
    const stack = edges(from);
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...edges(next));
    }
    return seen;
  };
  const all = reachable(root).add(root);
  return new Set([...all].filter((message) => reachable(message).has(message)));
}
