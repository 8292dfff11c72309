import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  create,
  createFileRegistry,
  fromBinary,
  fromJson,
  ScalarType,
  toBinary,
  type DescMessage,
  type FileRegistry,
} from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import {
  DurationSchema,
  FileDescriptorSetSchema,
  isWrapperDesc,
  ListValueSchema,
  StructSchema,
  TimestampSchema,
  ValueSchema,
} from '@bufbuild/protobuf/wkt';
import { createToolCodec, descriptorSet, toolCatalogue, type ToolDefinition } from '@quarry/contracts';
import { seededRandom } from '@quarry/testing';
import { buildResultDecoders } from '../src/codec.js';
import { deriveCatalogue } from '../src/catalogue/derive.js';
import { buildFixture, buildModule } from './support/buf-fixture.js';

// The codec decodes results directly (result-decoder.ts) and must give exactly what the
// reflective path gives (protobuf-es fromBinary + toJson + the output conversion): the same
// JSON text, key order included, for every result of the catalogue, on random messages, merged
// messages and hand-made bytes; where the reflective path refuses bytes, the codec refuses them
// with the same error.

/** Random draws from a seed, so a failure names a seed that reproduces it. */
function prng(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]) => items[int(items.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof prng>;

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
function randomMessage(desc: DescMessage, random: Random, wild: boolean, depth = 0): unknown {
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

/** What a decoder makes of the bytes: its JSON text (keys in order), or its error. */
function outcome(decode: (bytes: Uint8Array) => unknown, bytes: Uint8Array): string {
  try {
    return JSON.stringify(decode(bytes));
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

interface Subject {
  name: string;
  desc: DescMessage;
  codec: { decodeResponse(bytes: Uint8Array): unknown };
  direct: (bytes: Uint8Array) => unknown;
  reflective: (bytes: Uint8Array) => unknown;
}

function subjectsOf(tools: readonly ToolDefinition[], set: Uint8Array): Subject[] {
  const registry: FileRegistry = createFileRegistry(fromBinary(FileDescriptorSetSchema, set));
  const seen = new Set<string>();
  const subjects: Subject[] = [];
  for (const tool of tools) {
    const desc = registry.getService(tool.rpc.service)!.methods.find((m) => m.name === tool.rpc.method)!.output;
    if (seen.has(desc.typeName)) continue;
    seen.add(desc.typeName);
    const { direct, reflective } = buildResultDecoders(desc, registry);
    if (!direct) throw new Error(`${desc.typeName} has no direct decoder`);
    subjects.push({ name: desc.typeName, desc, codec: createToolCodec(tool, set), direct, reflective });
  }
  return subjects;
}

describe('the direct result decoder', () => {
  let subjects: Subject[];
  let thing: Subject;

  beforeAll(() => {
    const fixture = buildFixture();
    const fixtureSubjects = subjectsOf(deriveCatalogue(fixture), fixture);
    thing = fixtureSubjects.find((s) => s.name === 'quarry.fixture.v1.Thing')!;
    subjects = [...subjectsOf(toolCatalogue, descriptorSet), ...fixtureSubjects];
  });

  it('covers every result message of the catalogue', () => {
    const results = new Set(subjects.map((s) => s.name));
    expect(results.size).toBeGreaterThanOrEqual(20);
    expect(results).toContain('quarry.plan.v1.GetPlanStatusResponse');
  });

  it('decodes random results exactly as the reflective path does (JSON text and key order), without falling back', () => {
    for (const subject of subjects) {
      for (let seed = 1; seed <= 150; seed++) {
        const bytes = toBinary(subject.desc, randomMessage(subject.desc, prng(seed), false) as never);
        const expected = outcome(subject.reflective, bytes);
        expect({ subject: subject.name, seed, json: outcome(subject.direct, bytes) }).toEqual({
          subject: subject.name,
          seed,
          json: expected,
        });
        expect(expected.startsWith('error')).toBe(false);
      }
    }
  });

  it('answers, through the codec, exactly as the reflective path on values a result cannot carry (the same error)', () => {
    let refused = 0;
    for (const subject of subjects) {
      for (let seed = 1; seed <= 150; seed++) {
        const bytes = toBinary(subject.desc, randomMessage(subject.desc, prng(seed), true) as never);
        const expected = outcome(subject.reflective, bytes);
        if (expected.startsWith('error')) refused++;
        expect({ subject: subject.name, seed, json: outcome((b) => subject.codec.decodeResponse(b), bytes) }).toEqual({
          subject: subject.name,
          seed,
          json: expected,
        });
      }
    }
    expect(refused).toBeGreaterThan(100); // the wild values were drawn, and refused
  });

  it('merges a message that occurs twice on the wire as protobuf does (singular fields: last wins; messages: merged; lists: appended; oneofs: last member)', () => {
    for (const subject of subjects) {
      for (let seed = 1; seed <= 60; seed++) {
        const random = prng(seed);
        const first = toBinary(subject.desc, randomMessage(subject.desc, random, false) as never);
        const second = toBinary(subject.desc, randomMessage(subject.desc, random, false) as never);
        const bytes = new Uint8Array([...first, ...second]);
        const expected = outcome(subject.reflective, bytes);
        // Two valid values can merge into one JSON cannot carry (a Duration's signs): the codec refuses it then.
        const decode = expected.startsWith('error')
          ? (b: Uint8Array) => subject.codec.decodeResponse(b)
          : subject.direct;
        expect({ subject: subject.name, seed, json: outcome(decode, bytes) }).toEqual({
          subject: subject.name,
          seed,
          json: expected,
        });
      }
    }
  });

  describe('on hand-made bytes of quarry.fixture.v1.Thing', () => {
    const writer = () => new BinaryWriter();
    const same = (bytes: Uint8Array) => {
      const expected = outcome(thing.reflective, bytes);
      expect(outcome((b) => thing.codec.decodeResponse(b), bytes)).toBe(expected);
      return expected;
    };

    it('skips unknown fields of every wire type', () => {
      const bytes = writer()
        .tag(1, WireType.LengthDelimited)
        .string('known')
        .tag(900, WireType.Varint)
        .int32(5)
        .tag(901, WireType.Bit64)
        .fixed64(1n)
        .tag(902, WireType.LengthDelimited)
        .string('unknown')
        .tag(903, WireType.Bit32)
        .fixed32(7)
        .tag(6, WireType.Varint)
        .bool(true)
        .finish();
      expect(outcome(thing.direct, bytes)).toBe(same(bytes));
      expect(JSON.parse(same(bytes))).toMatchObject({ text: 'known', flag: true });
    });

    it('reads repeated numbers packed and unpacked, and enums in lists', () => {
      const packed = writer().tag(24, WireType.LengthDelimited).fork().int32(1).int32(2).join();
      const bytes = packed.tag(24, WireType.Varint).int32(1).finish();
      expect(outcome(thing.direct, bytes)).toBe(same(bytes));
      expect(JSON.parse(same(bytes)).kinds).toEqual(['search', 'deep_dive', 'search']);
    });

    it('fills a map entry without key or value with their defaults, and keeps the last of a repeated key', () => {
      const bytes = writer()
        .tag(25, WireType.LengthDelimited)
        .fork()
        .tag(2, WireType.Varint)
        .int32(3)
        .join()
        .tag(25, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .string('k')
        .join()
        .tag(25, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .string('k')
        .tag(2, WireType.Varint)
        .int32(9)
        .join()
        .finish();
      expect(outcome(thing.direct, bytes)).toBe(same(bytes));
      expect(JSON.parse(same(bytes)).counts).toEqual({ '': 3, k: 9 });
    });

    it('switches a oneof to the member that comes last', () => {
      const bytes = writer()
        .tag(29, WireType.LengthDelimited)
        .string('plan')
        .tag(30, WireType.LengthDelimited)
        .string('step')
        .finish();
      expect(outcome(thing.direct, bytes)).toBe(same(bytes));
      expect(JSON.parse(same(bytes))).toMatchObject({ stepId: 'step' });
      expect(JSON.parse(same(bytes))).not.toHaveProperty('planId');
    });

    it('refuses what the reflective path refuses, with its error: truncated bytes, invalid UTF-8, an illegal tag, a Struct nested beyond the recursion limit', () => {
      const deep = JSON.parse('{"a":'.repeat(40) + '1' + '}'.repeat(40));
      const cases = [
        writer().tag(1, WireType.LengthDelimited).string('truncated').finish().subarray(0, 5),
        writer()
          .tag(1, WireType.LengthDelimited)
          .bytes(new Uint8Array([0xc3, 0x28]))
          .finish(),
        new Uint8Array([0x00, 0x01]),
        toBinary(thing.desc, create(thing.desc, { attributes: fromJson(StructSchema, deep) } as never)),
      ];
      for (const bytes of cases) expect(same(bytes)).toMatch(/^error: Invalid response: /);
    });

    it('writes timestamps as protobuf-es does, across days, centuries and fractions', () => {
      for (const [seconds, nanos] of [
        [-62135596800n, 0],
        [253402300799n, 999_999_999],
        [0n, 1],
        [-1n, 500_000_000],
        [951782400n, 120_000_000],
        [1795000000n, 123_456_000],
      ] as const) {
        const bytes = toBinary(
          thing.desc,
          create(thing.desc, { at: create(TimestampSchema, { seconds, nanos }) } as never),
        );
        expect(outcome(thing.direct, bytes)).toBe(same(bytes));
      }
      expect(
        JSON.parse(
          same(
            toBinary(
              thing.desc,
              create(thing.desc, { at: create(TimestampSchema, { seconds: -1n, nanos: 500_000_000 }) } as never),
            ),
          ),
        ).at,
      ).toBe('1969-12-31T23:59:59.500Z');
    });
  });

  it('writes keys in field-number order whatever the declaration order, and defaults a map entry without value by its type', () => {
    const set = buildModule({
      'quarry/order/v1/order.proto': `syntax = "proto3";
package quarry.order.v1;
message Shuffled {
  string last = 9;
  map<string, string> labels = 2;
  int64 first = 1;
  repeated double middle = 5;
}
`,
    });
    const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, set));
    const desc = registry.getMessage('quarry.order.v1.Shuffled')!;
    const { direct, reflective } = buildResultDecoders(desc, registry);
    const bytes = new BinaryWriter()
      .tag(9, WireType.LengthDelimited)
      .string('z')
      .tag(2, WireType.LengthDelimited)
      .fork()
      .tag(1, WireType.LengthDelimited)
      .string('no value')
      .join()
      .tag(1, WireType.Varint)
      .int64(3n)
      .finish();
    expect(outcome(direct!, bytes)).toBe(outcome(reflective, bytes));
    expect(outcome(direct!, bytes)).toBe('{"first":3,"labels":{"no value":""},"middle":[],"last":"z"}');
  });
});
