import { create, fromJson, ScalarType, type DescMessage } from '@bufbuild/protobuf';
import {
  DurationSchema,
  isWrapperDesc,
  ListValueSchema,
  StructSchema,
  TimestampSchema,
  ValueSchema,
} from '@bufbuild/protobuf/wkt';
import { seededRandom } from '@quarry/testing';

// Random messages of any descriptor, for the result-decoding tests (result-decoding.test.ts).

/** Random draws from a seed, so a failure names a seed that reproduces it. */
export function prng(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]) => items[int(items.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
export type Random = ReturnType<typeof prng>;

const STRINGS = [
  '',
  'a',
  'plan',
  'Step 1: do the work and report sources.',
  '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
  'Zürich – 東京 ✓',
  '\u{1F600} emoji',
  '__proto__',
  'x'.repeat(300),
];

/**
 * A random message of `desc`. `wild` also draws values a result cannot carry (an enum number the
 * contract does not know, NaN, a 64-bit value beyond 2^53, a timestamp out of range, an empty Value).
 */
export function randomMessage(desc: DescMessage, random: Random, wild: boolean, depth = 0): unknown {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp': {
      const seconds =
        wild && random.chance(0.1)
          ? random.pick([-62135596801n, 253402300800n])
          : BigInt(random.int(4_000_000_000)) - 1_000_000_000n;
      const nanos = random.pick([
        0,
        1,
        5_000_000,
        123_000_000,
        123_456_000,
        123_456_789,
        999_999_999,
        ...(wild ? [-1, 1_000_000_000] : []),
      ]);
      return create(TimestampSchema, { seconds, nanos });
    }
    case 'google.protobuf.Duration':
      return create(
        DurationSchema,
        random.pick([{ seconds: 90n }, { seconds: -3n, nanos: -500_000_000 }, { nanos: 1_000 }]),
      );
    case 'google.protobuf.Struct':
      return fromJson(StructSchema, randomObject(random, depth));
    case 'google.protobuf.ListValue':
      return fromJson(ListValueSchema, [randomJson(random, depth + 1), randomJson(random, depth + 1)]);
    case 'google.protobuf.Value':
      if (wild && random.chance(0.1))
        return create(ValueSchema, random.chance(0.5) ? {} : { kind: { case: 'numberValue', value: Number.NaN } });
      return fromJson(ValueSchema, randomJson(random, depth));
  }
  const init: Record<string, unknown> = {};
  for (const oneof of desc.oneofs) {
    if (random.chance(0.3)) continue;
    const member = random.pick(oneof.fields);
    init[oneof.localName] = { case: member.localName, value: randomField(member, random, wild, depth) };
  }
  for (const field of desc.fields) {
    if (field.oneof) continue;
    if (field.fieldKind === 'list') {
      if (field.listKind === 'message' && depth > 3) continue;
      init[field.localName] = Array.from({ length: random.int(4) }, () => randomItem(field, random, wild, depth));
    } else if (field.fieldKind === 'map') {
      if (field.mapKind === 'message' && depth > 3) continue;
      const entries = Array.from(
        { length: random.int(4) },
        () => [mapKey(field.mapKey, random), randomItem(field, random, wild, depth)] as const,
      );
      init[field.localName] = Object.fromEntries(entries);
    } else if (field.fieldKind === 'message' && depth > 3) {
      continue;
    } else if (random.chance(0.75)) {
      init[field.localName] = randomField(field, random, wild, depth);
    }
  }
  return create(desc, init);
}

type AnyField = DescMessage['fields'][number];

function randomField(field: AnyField, random: Random, wild: boolean, depth: number): unknown {
  if (field.fieldKind === 'message') {
    // protobuf-es holds a wrapper (StringValue, Int64Value, …) as its bare value.
    if (isWrapperDesc(field.message)) return randomScalar(field.message.fields[0]!.scalar!, random, wild);
    return randomMessage(field.message, random, wild, depth + 1);
  }
  if (field.fieldKind === 'enum')
    return randomEnum(
      field.enum.values.map((v) => v.number),
      random,
      wild,
    );
  if (field.fieldKind === 'scalar') return randomScalar(field.scalar, random, wild);
  throw new Error(`not a singular field: ${field.name}`);
}

function randomItem(field: AnyField, random: Random, wild: boolean, depth: number): unknown {
  if (field.fieldKind === 'list') {
    if (field.listKind === 'message') return randomMessage(field.message, random, wild, depth + 1);
    if (field.listKind === 'enum')
      return randomEnum(
        field.enum.values.map((v) => v.number).filter((n) => wild || n !== 0),
        random,
        wild,
      );
    return randomScalar(field.scalar, random, wild);
  }
  if (field.fieldKind === 'map') {
    if (field.mapKind === 'message') return randomMessage(field.message, random, wild, depth + 1);
    if (field.mapKind === 'enum')
      return randomEnum(
        field.enum.values.map((v) => v.number).filter((n) => wild || n !== 0),
        random,
        wild,
      );
    return randomScalar(field.scalar, random, wild);
  }
  throw new Error(`not a list or map: ${field.name}`);
}

function randomEnum(numbers: number[], random: Random, wild: boolean): number {
  return wild && random.chance(0.1) ? 99 : random.pick(numbers);
}

function randomScalar(scalar: ScalarType, random: Random, wild: boolean): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return random.pick(STRINGS);
    case ScalarType.BOOL:
      return random.chance(0.5);
    case ScalarType.BYTES:
      return new Uint8Array(Array.from({ length: random.int(5) }, () => random.int(256)));
    case ScalarType.DOUBLE:
      return wild && random.chance(0.1)
        ? random.pick([Number.NaN, Infinity, -Infinity])
        : random.pick([0, -0, 1.5, -2.25, 1e300, 5e-324, 0.1]);
    case ScalarType.FLOAT:
      return wild && random.chance(0.1) ? Number.NaN : random.pick([0, 0.1, -3.5, 4000000000, 1e-40]);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return wild && random.chance(0.1)
        ? random.pick([2n ** 53n, -(2n ** 60n)])
        : random.pick([0n, 1n, -1n, 9007199254740991n, -9007199254740991n, 123456789012n]);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return wild && random.chance(0.1) ? 2n ** 64n - 1n : random.pick([0n, 1n, 9007199254740991n, 42n]);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return random.pick([0, 1, 4294967295, 42]);
    default:
      return random.pick([0, 1, -1, 2147483647, -2147483648, 7]);
  }
}

function mapKey(scalar: ScalarType, random: Random): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return random.pick(['', 'a', 'b', '10', '2', '__proto__', 'Zürich']);
    case ScalarType.BOOL:
      return random.chance(0.5);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return random.pick(['0', '1', '42', '9007199254740993']);
    default:
      return random.pick([0, 1, 42, 7]);
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
function randomJson(random: Random, depth: number): Json {
  if (depth > 3) return random.pick([null, true, 1.5, 'leaf']);
  switch (random.int(6)) {
    case 0:
      return null;
    case 1:
      return random.chance(0.5);
    case 2:
      return random.pick([0, -1, 2.5, 1e21]);
    case 3:
      return random.pick(STRINGS);
    case 4:
      return Array.from({ length: random.int(3) }, () => randomJson(random, depth + 1));
    default:
      return randomObject(random, depth + 1);
  }
}
function randomObject(random: Random, depth: number): { [key: string]: Json } {
  const object: { [key: string]: Json } = {};
  for (let i = random.int(4); i > 0; i--) {
    const key = random.pick(['a', 'b', '1', '0', '__proto__', 'Zürich', '']);
    Object.defineProperty(object, key, {
      value: randomJson(random, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}
