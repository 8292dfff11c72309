import { ScalarType, type DescEnum } from '@bufbuild/protobuf';
import { enumValueNames, NULL_VALUE_ENUM } from './enums.js';

// The schemas of proto's leaf values: scalars, enums, map keys and the well-known types that
// have their own proto3 JSON form. The rules are listed in schema.ts.

/** A schema while it is being built (the published JsonSchema is read-only). */
export type MutableSchema = Record<string, unknown>;

const INT32 = { minimum: -2147483648, maximum: 2147483647 };
const UINT32 = { minimum: 0, maximum: 4294967295 };
const INT64 = { minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER };
const UINT64 = { minimum: 0, maximum: Number.MAX_SAFE_INTEGER };

export function scalarSchema(scalar: ScalarType): MutableSchema {
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

export function enumSchema(descEnum: DescEnum): MutableSchema {
  if (descEnum.typeName === NULL_VALUE_ENUM) return { type: 'null' };
  return { type: 'string', enum: enumValueNames(descEnum).map((v) => v.short) };
}

// Map keys are always strings in JSON; integer and bool keys are spelled as such.
export function mapKeySchema(key: ScalarType): MutableSchema {
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
