import { beforeAll, describe, expect, it } from '@jest/globals';
import { create, fromJson, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { StructSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { descriptorSet, toolCatalogue } from '@quarry/contracts';
import { deriveCatalogue } from '../src/catalogue/derive.js';
import { buildFixture, buildModule } from './support/buf-fixture.js';
import { decoded, missingFields, subjectsOf, type Subject } from './support/decoding-subjects.js';
import { prng, randomMessage } from './support/random-message.js';

// The codec decodes a result with protobuf-es (fromBinary, then toJson with every implicit
// field) and converts it to the tool's JSON. Held here: every result message of the catalogue and
// of the fixture, on random messages, decodes with every implicit field present; values a result
// cannot carry and malformed bytes fail with a ContractError about the response, never with
// anything else; hand-made bytes (unknown fields, packed lists, map entries without key or
// value, oneof switching, a message occurring twice, timestamps at both ends of their range) give
// exactly the JSON text expected, key order included.

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
