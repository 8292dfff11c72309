import { ScalarType, type DescEnum, type DescField, type DescMessage, type DescOneof } from '@bufbuild/protobuf';
import type { Commented } from './comments.js';
import { enumValueNames, NULL_VALUE_ENUM } from './enums.js';
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
 */

export type SchemaMode = 'input' | 'output';

/** `(quarry.mcp.v1.field)` in its proto3 JSON form (only set members present). */
export interface FieldConstraints {
  format?: string;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  required?: boolean;
}

/** `(quarry.mcp.v1.long_poll)` in its proto3 JSON form. */
export interface LongPollOption {
  maxSeconds?: number;
}

/** `(quarry.mcp.v1.oneof)` in its proto3 JSON form. */
export interface OneofConstraints {
  required?: boolean;
}

/** What the schema builder needs to know beyond the descriptors themselves. */
export interface SchemaSources {
  describe(desc: Commented): string | undefined;
  fieldConstraints(field: DescField): FieldConstraints | undefined;
  longPoll(field: DescField): LongPollOption | undefined;
  oneofConstraints(oneof: DescOneof): OneofConstraints | undefined;
}

/** A schema rule broken by a proto definition; the message names the field. */
export class SchemaError extends Error {
  override name = 'SchemaError';
}

export const FORMATS: readonly string[] = ['uuid', 'email', 'uri', 'date-time'];

/**
 * Message types whose root-level fields belong to the gateway's side channel (MCP sampling and
 * model usage, quarry/mcp/v1/sampling.proto): the gateway fills or consumes them, so they are in
 * neither schema, and a caller can never send one.
 */
export const GATEWAY_FIELD_TYPES = {
  'quarry.mcp.v1.ClientSampling': 'clientSampling',
  'quarry.mcp.v1.SamplingRequest': 'samplingRequest',
  'quarry.mcp.v1.ModelUsage': 'modelUsage',
} as const;

export type GatewayFieldRole = (typeof GATEWAY_FIELD_TYPES)[keyof typeof GATEWAY_FIELD_TYPES];

export function gatewayFieldRole(field: DescField): GatewayFieldRole | undefined {
  return field.message ? GATEWAY_FIELD_TYPES[field.message.typeName as keyof typeof GATEWAY_FIELD_TYPES] : undefined;
}

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

type MutableSchema = Record<string, unknown>;

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
  if (state.mode === 'input') Object.assign(schema, oneofKeywords(message.oneofs, state));
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
    applyLongPoll(field, schema, state);
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
  const hint = state.mode === 'input' && field.oneof ? oneofHint(field.oneof, state) : undefined;
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

// Oneof groups, for inputs only (protobuf itself never yields two members in a result).
// "At most one" is `dependentSchemas: { a: { properties: { b: false } } }` (if a is set, b must
// be absent), and "exactly one" adds `anyOf` of `required`. The more common `not: { required:
// [a, b] }` is avoided because Ajv's strict mode rejects `required` in a subschema that does not
// define the property itself; hence also `properties: { a: true }` beside each `required`.
function oneofKeywords(oneofs: readonly DescOneof[], state: State): MutableSchema {
  const dependentSchemas: Record<string, JsonSchema> = {};
  const atLeastOne: JsonSchema[] = [];
  for (const oneof of oneofs) {
    const names = oneof.fields.map((f) => f.jsonName);
    names.forEach((name, i) => {
      const later = names.slice(i + 1);
      if (later.length > 0) dependentSchemas[name] = { properties: Object.fromEntries(later.map((n) => [n, false])) };
    });
    if (state.sources.oneofConstraints(oneof)?.required) {
      atLeastOne.push({ anyOf: names.map((name) => ({ required: [name], properties: { [name]: true } })) });
    }
  }
  const keywords: MutableSchema = {};
  if (Object.keys(dependentSchemas).length > 0) keywords.dependentSchemas = dependentSchemas;
  if (atLeastOne.length === 1) Object.assign(keywords, atLeastOne[0]);
  if (atLeastOne.length > 1) keywords.allOf = atLeastOne;
  return keywords;
}

// Tells models in words what the oneof keywords say, on each member.
function oneofHint(oneof: DescOneof, state: State): string {
  const names = oneof.fields.map((f) => f.jsonName).join(', ');
  return state.sources.oneofConstraints(oneof)?.required
    ? `Set exactly one of ${names}.`
    : `Set at most one of ${names}.`;
}

const INT32 = { minimum: -2147483648, maximum: 2147483647 };
const UINT32 = { minimum: 0, maximum: 4294967295 };
const INT64 = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
const UINT64 = { minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

function scalarSchema(scalar: ScalarType): MutableSchema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: 'string' };
    case ScalarType.BOOL:
      return { type: 'boolean' };
    case ScalarType.BYTES:
      return { type: 'string', contentEncoding: 'base64' };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: 'number' };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: 'integer', ...INT32 };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: 'integer', ...UINT32 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: 'integer', ...INT64 };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: 'integer', ...UINT64 };
  }
}

function enumSchema(descEnum: DescEnum): MutableSchema {
  if (descEnum.typeName === NULL_VALUE_ENUM) return { type: 'null' };
  return { type: 'string', enum: enumValueNames(descEnum).map((v) => v.short) };
}

// Map keys are always strings in JSON; integer and bool keys are spelled as such.
function mapKeySchema(key: ScalarType): MutableSchema {
  switch (key) {
    case ScalarType.STRING:
      return {};
    case ScalarType.BOOL:
      return { propertyNames: { type: 'string', enum: ['true', 'false'] } };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { propertyNames: { type: 'string', pattern: '^(0|[1-9][0-9]*)$' } };
    default:
      return { propertyNames: { type: 'string', pattern: '^(0|-?[1-9][0-9]*)$' } };
  }
}

const WRAPPERS: Readonly<Record<string, ScalarType>> = {
  'google.protobuf.DoubleValue': ScalarType.DOUBLE,
  'google.protobuf.FloatValue': ScalarType.FLOAT,
  'google.protobuf.Int64Value': ScalarType.INT64,
  'google.protobuf.UInt64Value': ScalarType.UINT64,
  'google.protobuf.Int32Value': ScalarType.INT32,
  'google.protobuf.UInt32Value': ScalarType.UINT32,
  'google.protobuf.BoolValue': ScalarType.BOOL,
  'google.protobuf.StringValue': ScalarType.STRING,
  'google.protobuf.BytesValue': ScalarType.BYTES,
};

/** Schemas of the well-known types that have their own proto3 JSON form (a fresh object). */
export function wellKnownSchema(typeName: string): MutableSchema | undefined {
  switch (typeName) {
    case 'google.protobuf.Struct':
      return { type: 'object' };
    case 'google.protobuf.Value':
      return {};
    case 'google.protobuf.ListValue':
      return { type: 'array' };
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' };
    case 'google.protobuf.Duration':
      return { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' };
    case 'google.protobuf.FieldMask':
      return { type: 'string' };
    case 'google.protobuf.Empty':
      return { type: 'object', additionalProperties: false };
    case 'google.protobuf.Any':
      return { type: 'object', properties: { '@type': { type: 'string' } }, required: ['@type'] };
  }
  const wrapped = WRAPPERS[typeName];
  if (wrapped === undefined) return undefined;
  const scalar = scalarSchema(wrapped);
  return { ...scalar, type: [scalar.type, 'null'] };
}

const INTEGER_SCALARS: ReadonlySet<ScalarType> = new Set([
  ScalarType.INT32,
  ScalarType.SINT32,
  ScalarType.SFIXED32,
  ScalarType.UINT32,
  ScalarType.FIXED32,
  ScalarType.INT64,
  ScalarType.SINT64,
  ScalarType.SFIXED64,
  ScalarType.UINT64,
  ScalarType.FIXED64,
]);

// A long-poll field's bounds come from its `(quarry.mcp.v1.long_poll)` option alone: 0 up to
// max_seconds, the same cap the gateway adds to the rpc's deadline (ToolRpc.longPoll).
function applyLongPoll(field: DescField, schema: MutableSchema, state: State): void {
  const option = state.sources.longPoll(field);
  if (!option) return;
  const fail = (problem: string): never => {
    throw new SchemaError(`field ${field.parent.typeName}.${field.name}: ${problem}`);
  };
  if (field.parent !== state.root) fail('long_poll applies only to a field of the request itself');
  if (field.fieldKind !== 'scalar' || !INTEGER_SCALARS.has(field.scalar))
    fail('long_poll applies only to a singular integer field');
  const bounds = has(state.sources.fieldConstraints(field), NUMBER_KEYS);
  if (bounds.length > 0) fail(`long_poll sets the bounds itself; drop (quarry.mcp.v1.field) ${bounds.join(', ')}`);
  if (!option.maxSeconds) fail('long_poll needs max_seconds of at least 1');
  schema.minimum = 0;
  schema.maximum = Math.min(option.maxSeconds!, schema.maximum as number);
}

const has = <K extends keyof FieldConstraints>(c: FieldConstraints | undefined, keys: readonly K[]) =>
  keys.filter((k) => c?.[k] !== undefined && c?.[k] !== false);

const STRING_KEYS = ['format', 'minLength', 'maxLength', 'pattern'] as const;
const NUMBER_KEYS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;
const ITEM_KEYS = ['minItems', 'maxItems', 'uniqueItems'] as const;
const PROPERTY_KEYS = ['minProperties', 'maxProperties'] as const;

// Adds `(quarry.mcp.v1.field)` constraints to a field's schema (in place), refusing any that do
// not fit the field's kind: a silently ignored constraint would be a contract nobody enforces.
function applyConstraints(field: DescField, schema: MutableSchema, c: FieldConstraints | undefined): void {
  if (!c) return;
  const fail = (problem: string): never => {
    throw new SchemaError(`field ${field.parent.typeName}.${field.name}: ${problem}`);
  };
  const element = (
    field.fieldKind === 'list' ? schema.items : field.fieldKind === 'map' ? schema.additionalProperties : schema
  ) as MutableSchema;
  const scalar =
    field.fieldKind === 'scalar' || field.fieldKind === 'list' || field.fieldKind === 'map' ? field.scalar : undefined;

  const stringKeys = has(c, STRING_KEYS);
  if (stringKeys.length > 0) {
    if (scalar !== ScalarType.STRING) fail(`${stringKeys.join(', ')} only apply to string fields`);
    if (c.format !== undefined && !FORMATS.includes(c.format))
      fail(`format "${c.format}" is not one of ${FORMATS.join(', ')}`);
    if (c.pattern !== undefined) {
      try {
        new RegExp(c.pattern, 'u');
      } catch (error) {
        fail(`pattern ${JSON.stringify(c.pattern)} is not a valid regular expression (${(error as Error).message})`);
      }
    }
    for (const key of stringKeys) element[key] = c[key];
  }

  const numberKeys = has(c, NUMBER_KEYS);
  if (numberKeys.length > 0) {
    if (
      scalar === undefined ||
      scalar === ScalarType.STRING ||
      scalar === ScalarType.BOOL ||
      scalar === ScalarType.BYTES
    ) {
      fail(`${numberKeys.join(', ')} only apply to numeric fields`);
    }
    // Integer types already carry their bounds; keep the tighter of the two.
    if (c.minimum !== undefined)
      element.minimum = Math.max(c.minimum, (element.minimum as number | undefined) ?? -Infinity);
    if (c.maximum !== undefined)
      element.maximum = Math.min(c.maximum, (element.maximum as number | undefined) ?? Infinity);
    if (c.exclusiveMinimum !== undefined) element.exclusiveMinimum = c.exclusiveMinimum;
    if (c.exclusiveMaximum !== undefined) element.exclusiveMaximum = c.exclusiveMaximum;
  }

  const itemKeys = has(c, ITEM_KEYS);
  if (itemKeys.length > 0) {
    if (field.fieldKind !== 'list') fail(`${itemKeys.join(', ')} only apply to repeated fields`);
    for (const key of itemKeys) schema[key] = c[key];
  }

  const propertyKeys = has(c, PROPERTY_KEYS);
  if (propertyKeys.length > 0) {
    const isStruct = field.fieldKind === 'message' && field.message.typeName === 'google.protobuf.Struct';
    if (field.fieldKind !== 'map' && !isStruct)
      fail(`${propertyKeys.join(', ')} only apply to map and google.protobuf.Struct fields`);
    for (const key of propertyKeys) schema[key] = c[key];
  }

  if (c.required && (!['message', 'list', 'map'].includes(field.fieldKind) || field.oneof)) {
    fail(
      'required only applies to message, repeated and map fields outside a oneof (scalars without `optional` are required already; use (quarry.mcp.v1.oneof).required for a oneof)',
    );
  }
}
