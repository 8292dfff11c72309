import { ScalarType, type DescEnum, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { enumValueNames, NULL_VALUE_ENUM } from './catalogue/enums.js';
import { wellKnownSchema } from './catalogue/scalar-schema.js';
import { ContractError, joinPath } from './contract-error.js';

// What a tool's JSON Schema shows differently from proto3 JSON, mapped both ways: enum short
// names ("search" ↔ STEP_TYPE_SEARCH), 64-bit integers as numbers, unspecified enums left out of
// results, non-finite numbers refused in results.
//
// Converters are compiled once per message and direction, and only for messages that contain
// something to convert, so a tool like ping pays nothing per call. Input conversion copies the
// objects it changes (the caller's arguments stay untouched); output conversion works in place
// on toJson's fresh result.

type Direction = 'input' | 'output';
type ValueConverter = (value: unknown, path: string) => unknown;
type MessageConverter = (value: unknown, path: string) => unknown;

/** Returned by a converter to leave a singular field out (an unspecified enum in a result). */
const OMIT = Symbol('omit');

export function messageConverter(
  message: DescMessage,
  direction: Direction,
  cache: Map<DescMessage, MessageConverter>,
): MessageConverter | undefined {
  const special = wellKnownConverter(message, direction);
  if (special !== undefined) return special ?? undefined;
  if (!needsConversion(message, direction)) return undefined;
  const cached = cache.get(message);
  if (cached) return cached;

  const fields: ((target: Record<string, unknown>, path: string) => void)[] = [];
  const converter: MessageConverter = (value, path) => {
    if (value === null || typeof value !== 'object') return value;
    const target =
      direction === 'input' ? { ...(value as Record<string, unknown>) } : (value as Record<string, unknown>);
    for (const convertField of fields) convertField(target, path);
    return target;
  };
  cache.set(message, converter); // before compiling fields: recursive messages find it here

  for (const field of message.fields) {
    const convert = valueConverter(field, direction, cache);
    if (!convert) continue;
    const key = field.jsonName;
    if (field.fieldKind === 'list') {
      fields.push((target, path) => {
        const list = target[key];
        if (!Array.isArray(list)) return;
        target[key] = list.map((item, i) =>
          noOmit(convert(item, `${joinPath(path, key)}[${i}]`), `${joinPath(path, key)}[${i}]`),
        );
      });
    } else if (field.fieldKind === 'map') {
      fields.push((target, path) => {
        const map = target[key];
        if (map === null || typeof map !== 'object') return;
        const entries = Object.entries(map).map(([k, v]) => [
          k,
          noOmit(convert(v, joinPath(joinPath(path, key), k)), joinPath(joinPath(path, key), k)),
        ]);
        target[key] = Object.fromEntries(entries);
      });
    } else {
      fields.push((target, path) => {
        const value = target[key];
        if (value === undefined || value === null) return;
        const converted = convert(value, joinPath(path, key));
        if (converted === OMIT) delete target[key];
        else target[key] = converted;
      });
    }
  }
  return converter;
}

function noOmit(value: unknown, path: string): unknown {
  if (value === OMIT) throw new ContractError('response', [{ path, problem: 'is an unspecified enum value' }]);
  return value;
}

function valueConverter(
  field: DescField,
  direction: Direction,
  cache: Map<DescMessage, MessageConverter>,
): ValueConverter | undefined {
  if (field.message) return messageConverter(field.message, direction, cache);
  if (field.enum) return enumConverter(field.enum, direction);
  return direction === 'output' ? scalarConverter(field.scalar!) : undefined;
}

function enumConverter(descEnum: DescEnum, direction: Direction): ValueConverter | undefined {
  if (descEnum.typeName === NULL_VALUE_ENUM) return undefined;
  const names = enumValueNames(descEnum);
  if (direction === 'input') {
    const numbers = new Map(names.map((v) => [v.short, v.number]));
    return (value) => numbers.get(value as string) ?? value;
  }
  // toJson writes a known value as its proto name and an unknown one as its number.
  const shortByProtoName = new Map(names.map((v) => [descEnum.value[v.number]!.name, v.short]));
  const unspecified = new Set(
    descEnum.values.filter((v) => !names.some((n) => n.number === v.number)).map((v) => v.name),
  );
  return (value, path) => {
    const short = shortByProtoName.get(value as string);
    if (short !== undefined) return short;
    if (unspecified.has(value as string)) return OMIT;
    throw new ContractError('response', [{ path, problem: `has unknown enum value ${JSON.stringify(value)}` }]);
  };
}

const toSafeInteger: ValueConverter = (value, path) => {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number === 'number' && Number.isSafeInteger(number)) return number;
  throw new ContractError('response', [
    { path, problem: `is ${String(value)}, beyond the integers JSON numbers carry exactly (±2^53)` },
  ]);
};

const finiteNumber: ValueConverter = (value, path) => {
  if (typeof value === 'number') return value;
  throw new ContractError('response', [{ path, problem: `is ${String(value)}, which is not a JSON number` }]);
};

function scalarConverter(scalar: ScalarType): ValueConverter | undefined {
  switch (scalar) {
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return toSafeInteger;
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return finiteNumber;
    default:
      return undefined;
  }
}

// Well-known types have their own JSON form: nothing inside them is converted, except the value
// of a 64-bit or floating-point wrapper in a result. `null` = a well-known type with nothing to
// convert; `undefined` = not a well-known type.
function wellKnownConverter(message: DescMessage, direction: Direction): MessageConverter | null | undefined {
  if (!wellKnownSchema(message.typeName)) return undefined;
  if (direction === 'input') return null;
  switch (message.typeName) {
    case 'google.protobuf.Int64Value':
    case 'google.protobuf.UInt64Value':
      return toSafeInteger;
    case 'google.protobuf.FloatValue':
    case 'google.protobuf.DoubleValue':
      return finiteNumber;
    default:
      return null;
  }
}

// Whether any message reachable from `message` has a field to convert in this direction.
function needsConversion(message: DescMessage, direction: Direction): boolean {
  const seen = new Set<DescMessage>();
  const stack = [message];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    for (const field of next.fields) {
      if (field.message) {
        const special = wellKnownConverter(field.message, direction);
        if (special) return true;
        if (special === undefined) stack.push(field.message);
      } else if (field.enum) {
        if (field.enum.typeName !== NULL_VALUE_ENUM) return true;
      } else if (direction === 'output' && scalarConverter(field.scalar!)) {
        return true;
      }
    }
  }
  return false;
}
