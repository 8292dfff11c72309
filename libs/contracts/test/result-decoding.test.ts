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
import { ContractError, createToolCodec, descriptorSet, toolCatalogue, type ToolDefinition } from '@quarry/contracts';
import { seededRandom } from '@quarry/testing';
import { deriveCatalogue } from '../src/catalogue/derive.js';
import { buildFixture, buildModule } from './support/buf-fixture.js';

// The codec decodes a result with protobuf-es (fromBinary, then toJson with every implicit
// field) and converts it to the tool's JSON. Held here: every result message of the catalogue and
// of the fixture, on random messages, decodes with every implicit field present; values a result
// cannot carry and malformed bytes fail with a ContractError about the response, never with
// anything else; hand-made bytes (unknown fields, packed lists, map entries without key or
// value, oneof switching, a message occurring twice, timestamps at both ends of their range) give
// exactly the JSON text expected, key order included.

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

interface Subject {
  name: string;
  desc: DescMessage;
  codec: { decodeResponse(bytes: Uint8Array): Record<string, unknown> };
}

/**
 * The fields a result must always show (what its output schema requires): lists, maps and every
 * scalar without explicit presence, whatever its value. Enums are left out when unspecified,
 * message fields when unset.
 */
function missingFields(desc: DescMessage, json: Record<string, unknown>): string[] {
  return desc.fields
    .filter((field) => {
      if (field.oneof) return false;
      if (field.fieldKind === 'list') return !Array.isArray(json[field.jsonName]);
      if (field.fieldKind === 'map') return typeof json[field.jsonName] !== 'object';
      if (field.fieldKind === 'scalar' && !field.proto.proto3Optional) return !(field.jsonName in json);
      return false;
    })
    .map((field) => field.jsonName);
}

function subjectsOf(tools: readonly ToolDefinition[], set: Uint8Array): Subject[] {
  const registry: FileRegistry = createFileRegistry(fromBinary(FileDescriptorSetSchema, set));
  const seen = new Set<string>();
  const subjects: Subject[] = [];
  for (const tool of tools) {
    const desc = registry.getService(tool.rpc.service)!.methods.find((m) => m.name === tool.rpc.method)!.output;
    if (seen.has(desc.typeName)) continue;
    seen.add(desc.typeName);
    subjects.push({ name: desc.typeName, desc, codec: createToolCodec(tool, set) });
  }
  return subjects;
}

/** What the codec makes of the bytes: its JSON text (keys in order), or its error. */
function decoded(subject: Subject, bytes: Uint8Array): string {
  try {
    return JSON.stringify(subject.codec.decodeResponse(bytes));
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    expect(error.subject).toBe('response');
    return `error: ${error.message}`;
  }
}

describe('decoding a result', () => {
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

  it('decodes random results, every implicit field present', () => {
    for (const subject of subjects) {
      for (let seed = 1; seed <= 150; seed++) {
        const bytes = toBinary(subject.desc, randomMessage(subject.desc, prng(seed), false) as never);
        const json = decoded(subject, bytes);
        expect({ subject: subject.name, seed, error: json.startsWith('error') ? json : undefined }).toEqual({
          subject: subject.name,
          seed,
          error: undefined,
        });
        expect({ subject: subject.name, seed, missing: missingFields(subject.desc, JSON.parse(json)) }).toEqual({
          subject: subject.name,
          seed,
          missing: [],
        });
      }
    }
  });

  it('refuses values a result cannot carry with a ContractError, and decodes the rest', () => {
    let refused = 0;
    for (const subject of subjects) {
      for (let seed = 1; seed <= 150; seed++) {
        const bytes = toBinary(subject.desc, randomMessage(subject.desc, prng(seed), true) as never);
        const json = decoded(subject, bytes);
        if (json.startsWith('error')) refused++;
        expect(json).toMatch(/^(error: Invalid response: |\{)/);
      }
    }
    expect(refused).toBeGreaterThan(100); // the wild values were drawn, and refused
  });

  describe('on hand-made bytes of quarry.fixture.v1.Thing', () => {
    const writer = () => new BinaryWriter();
    const json = (bytes: Uint8Array) => JSON.parse(decoded(thing, bytes)) as Record<string, unknown>;

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
      expect(json(bytes)).toMatchObject({ text: 'known', flag: true });
      expect(decoded(thing, bytes)).toBe(
        decoded(
          thing,
          writer().tag(1, WireType.LengthDelimited).string('known').tag(6, WireType.Varint).bool(true).finish(),
        ),
      );
    });

    it('reads repeated numbers packed and unpacked, and enums in lists', () => {
      const packed = writer().tag(24, WireType.LengthDelimited).fork().int32(1).int32(2).join();
      const bytes = packed.tag(24, WireType.Varint).int32(1).finish();
      expect(json(bytes).kinds).toEqual(['search', 'deep_dive', 'search']);
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
      expect(json(bytes).counts).toEqual({ '': 3, k: 9 });
    });

    it('switches a oneof to the member that comes last', () => {
      const bytes = writer()
        .tag(29, WireType.LengthDelimited)
        .string('plan')
        .tag(30, WireType.LengthDelimited)
        .string('step')
        .finish();
      expect(json(bytes)).toMatchObject({ stepId: 'step' });
      expect(json(bytes)).not.toHaveProperty('planId');
    });

    it('merges a message that occurs twice as protobuf does: the last scalar wins, lists append, messages merge', () => {
      const once = (init: Record<string, unknown>) => toBinary(thing.desc, create(thing.desc, init as never));
      const first = once({ text: 'first', i32: 7, tags: ['a'], tree: { name: 'root' } });
      const second = once({ text: 'second', tags: ['b', 'c'], tree: { kind: 1 } });
      expect(json(new Uint8Array([...first, ...second]))).toMatchObject({
        text: 'second',
        i32: 7,
        tags: ['a', 'b', 'c'],
        tree: { name: 'root', kind: 'search', children: [] },
      });
    });

    it('refuses truncated bytes, invalid UTF-8, an illegal tag and a Struct nested beyond the recursion limit', () => {
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
      for (const bytes of cases) expect(decoded(thing, bytes)).toMatch(/^error: Invalid response: /);
    });

    it('writes timestamps in RFC 3339 with 0, 3, 6 or 9 fractional digits, across days, centuries and both ends of the range', () => {
      const at = (seconds: bigint, nanos: number) =>
        json(toBinary(thing.desc, create(thing.desc, { at: create(TimestampSchema, { seconds, nanos }) } as never))).at;
      expect(at(-62135596800n, 0)).toBe('0001-01-01T00:00:00Z');
      expect(at(253402300799n, 999_999_999)).toBe('9999-12-31T23:59:59.999999999Z');
      expect(at(0n, 1)).toBe('1970-01-01T00:00:00.000000001Z');
      expect(at(-1n, 500_000_000)).toBe('1969-12-31T23:59:59.500Z');
      expect(at(951782400n, 120_000_000)).toBe('2000-02-29T00:00:00.120Z');
      expect(at(1795000000n, 123_456_000)).toBe('2026-11-18T11:06:40.123456Z');
    });
  });

  it('writes keys in field-number order whatever the declaration order, and defaults a map entry without value by its type', () => {
    const set = buildModule({
      'quarry/order/v1/order.proto': `syntax = "proto3";
package quarry.order.v1;
import "quarry/mcp/v1/options.proto";
service OrderService {
  // Read a shuffled message.
  rpc GetShuffled(GetShuffledRequest) returns (Shuffled) {
    option (quarry.mcp.v1.tool) = {
      name: "get_shuffled"
      title: "Get shuffled"
      annotations: { read_only: true }
    };
  }
}
message GetShuffledRequest {}
message Shuffled {
  string last = 9;
  map<string, string> labels = 2;
  int64 first = 1;
  repeated double middle = 5;
}
`,
    });
    const [subject] = subjectsOf(deriveCatalogue(set), set);
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
    expect(decoded(subject!, bytes)).toBe('{"first":3,"labels":{"no value":""},"middle":[],"last":"z"}');
  });
});
