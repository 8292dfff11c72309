import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import type { MutableSchema } from './scalar-schema.js';
import type { FieldConstraints, SchemaSources } from './schema-sources.js';

// `(quarry.mcp.v1.field)` and `(quarry.mcp.v1.long_poll)` on a field's input schema. Each
// refuses, with a SchemaError naming the field, an option that does not fit the field.

/** A schema rule broken by a proto definition; the message names the field. */
export class SchemaError extends Error {
  override name = 'SchemaError';
}

export const FORMATS: readonly string[] = ['uuid', 'email', 'uri', 'date-time'];

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
export function applyLongPoll(
  field: DescField,
  schema: MutableSchema,
  sources: SchemaSources,
  root: DescMessage,
): void {
  const option = sources.longPoll(field);
  if (!option) return;
  const fail = (problem: string): never => {
    throw new SchemaError(`field ${field.parent.typeName}.${field.name}: ${problem}`);
  };
  if (field.parent !== root) fail('long_poll applies only to a field of the request itself');
  if (field.fieldKind !== 'scalar' || !INTEGER_SCALARS.has(field.scalar))
    fail('long_poll applies only to a singular integer field');
  const bounds = has(sources.fieldConstraints(field), NUMBER_KEYS);
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
export function applyConstraints(field: DescField, schema: MutableSchema, c: FieldConstraints | undefined): void {
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
