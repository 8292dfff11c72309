import { beforeAll, describe, expect, it } from '@jest/globals';
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { ContractError, createToolCodec, type ToolCodec, type ToolDefinition } from '@quarry/contracts';
import { deriveCatalogue } from '../src/catalogue/derive.js';
import { strictAjv } from './support/ajv.js';
import { buildFixture } from './support/buf-fixture.js';

// put_thing takes and returns quarry.fixture.v1.Thing, so a value can go JSON → request bytes
// → (the same bytes as a response) → JSON and must come back unchanged.

const THING = {
  text: 'hello world',
  id: '3f1c2a9e-8b7d-4c6e-9f0a-1b2c3d4e5f60',
  email: 'ada@example.org',
  url: 'https://example.org/a?b=c',
  when: '2024-05-01T12:00:00Z',
  flag: true,
  i32: 7,
  s32: -5,
  sf32: -6,
  u32: 42,
  f32: 4000000000,
  i64: -9007199254740991,
  s64: -3,
  sf64: 9007199254740991,
  u64: 9007199254740991,
  f64: 1,
  ratio: 0.5,
  score: -1.25,
  blob: 'aGVsbG8=',
  kind: 'deep_dive',
  note: 'a note',
  maybeKind: 'search',
  tags: ['ab', 'cd'],
  kinds: ['search', 'deep_dive'],
  counts: { a: 1, b: -2 },
  kindById: { '42': 'search', '-7': 'deep_dive' },
  tree: { name: 'root', kind: 'search', children: [{ name: 'leaf', kind: 'deep_dive', children: [] }] },
  inner: { value: 'v' },
  planId: 'p1',
  byIndex: 3,
  attributes: { nested: { list: [1, 'two', null, true] }, n: 1.5 },
  payload: ['any', { json: 1 }],
  items: [1, 'x'],
  at: '2024-05-01T12:00:00.123Z',
  timeout: '90s',
  label: 'label',
  big: 123456789012,
  legacy: 'old',
  customJSON: 'c',
};

describe('createToolCodec', () => {
  let set: Uint8Array;
  let putThing: ToolDefinition;
  let codec: ToolCodec;
  let thingDesc: DescMessage;

  beforeAll(() => {
    set = buildFixture();
    putThing = deriveCatalogue(set).find((t) => t.name === 'put_thing')!;
    codec = createToolCodec(putThing, set);
    thingDesc = createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage('quarry.fixture.v1.Thing')!;
  });

  it('round-trips JSON → bytes → JSON: enum short names, 64-bit numbers, maps, recursion, Struct, Value, Timestamp', () => {
    expect(codec.decodeResponse(codec.encodeRequest(THING))).toEqual(THING);
  });

  it('encodes enum short names as their proto values and 64-bit numbers exactly', () => {
    const message = fromBinary(thingDesc, codec.encodeRequest(THING)) as unknown as Record<string, unknown>;
    expect(message.kind).toBe(2); // KIND_DEEP_DIVE
    expect(message.kinds).toEqual([1, 2]);
    expect(message.i64).toBe(-9007199254740991n);
    expect(message.kindById).toEqual({ '42': 1, '-7': 2 });
  });

  it("leaves the caller's arguments untouched", () => {
    const args = structuredClone(THING);
    codec.encodeRequest(args);
    expect(args).toEqual(THING);
  });

  it('emits every implicit field of a result, and leaves out an unspecified enum', () => {
    const result = codec.decodeResponse(new Uint8Array());
    expect(result).toEqual({
      text: '',
      id: '',
      email: '',
      url: '',
      when: '',
      flag: false,
      i32: 0,
      s32: 0,
      sf32: 0,
      u32: 0,
      f32: 0,
      i64: 0,
      s64: 0,
      sf64: 0,
      u64: 0,
      f64: 0,
      ratio: 0,
      score: 0,
      blob: '',
      tags: [],
      kinds: [],
      counts: {},
      kindById: {},
      legacy: '',
      customJSON: '',
    });
  });

  it('produces results that the output schema accepts', () => {
    const validate = strictAjv().compile(putThing.outputSchema);
    for (const result of [codec.decodeResponse(codec.encodeRequest(THING)), codec.decodeResponse(new Uint8Array())]) {
      expect(validate(result)).toBe(true);
    }
  });

  it('is built once per tool', () => {
    expect(createToolCodec(putThing, set)).toBe(codec);
  });

  describe('rejects bad arguments with a ContractError naming the field', () => {
    const without = (key: keyof typeof THING) => {
      const copy: Record<string, unknown> = { ...THING };
      delete copy[key];
      return copy;
    };

    it.each([
      ['an unknown enum value', { ...THING, kind: 'shallow' }, 'kind: must be one of "search", "deep_dive"'],
      ['a wrong type', { ...THING, i32: 'ten' }, 'i32: must be integer'],
      ['an unknown field', { ...THING, bogus: 1 }, 'bogus: is not a known field'],
      [
        'a proto field name instead of the JSON name',
        { ...without('maybeKind'), maybe_kind: 'search' },
        'maybe_kind: is not a known field',
      ],
      [
        'a bad value deep inside',
        { ...THING, tree: { name: 'r', kind: 'search', children: [{ name: 'c', kind: 'SEARCH', children: [] }] } },
        'tree.children[0].kind: must be one of "search", "deep_dive"',
      ],
      ['a missing required field', without('id'), 'id: is required'],
      ['a missing field of a required message', { ...THING, inner: {} }, 'inner.value: is required'],
      ['a bad format', { ...THING, id: 'not-a-uuid' }, 'id: must match format "uuid"'],
      ['two members of a oneof', { ...THING, stepId: 's1' }, 'stepId: cannot be set together with planId'],
      [
        'no member of a required oneof',
        without('byIndex'),
        'arguments: needs exactly one of byName, byIndex, byDefault',
      ],
      ['too few items', { ...THING, tags: [] }, 'tags: must NOT have fewer than 1 items'],
      ['a 64-bit number JSON cannot carry exactly', { ...THING, i64: 2 ** 60 }, 'i64: must be <= 9007199254740991'],
      ['an unspecified enum value', { ...THING, kind: 'unspecified' }, 'kind: must be one of "search", "deep_dive"'],
      ['something that is not an object', 'hello', 'arguments: must be object'],
    ])('%s', (_, args, problem) => {
      let error: unknown;
      try {
        codec.encodeRequest(args);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ContractError);
      expect((error as ContractError).subject).toBe('arguments');
      expect((error as Error).message).toContain(problem);
    });

    it('lists every problem at once, each with its path', () => {
      let error: ContractError | undefined;
      try {
        codec.encodeRequest({ ...THING, i32: 'ten', bogus: 1 });
      } catch (e) {
        error = e as ContractError;
      }
      expect(error?.issues).toEqual([
        { path: 'bogus', problem: 'is not a known field' },
        { path: 'i32', problem: 'must be integer' },
      ]);
      expect(error?.message).toBe('Invalid arguments: bogus: is not a known field; i32: must be integer');
    });

    it('reports what only protobuf checks: a map key beyond int64', () => {
      expect(() => codec.encodeRequest({ ...THING, kindById: { '99999999999999999999': 'search' } })).toThrow(
        /^Invalid arguments: kindById: .*invalid map key/,
      );
    });
  });

  describe('rejects a result that JSON cannot carry, naming the field', () => {
    const decode = (init: Record<string, unknown>) => () =>
      codec.decodeResponse(toBinary(thingDesc, create(thingDesc, init)));

    it.each([
      ['an enum value the contract does not know', { kind: 7 }, 'Invalid response: kind: has unknown enum value 7'],
      [
        'an unspecified enum value in a list',
        { kinds: [1, 0] },
        'Invalid response: kinds[1]: is an unspecified enum value',
      ],
      ['a 64-bit value beyond 2^53', { i64: 2n ** 60n }, 'Invalid response: i64: is 1152921504606846976, beyond'],
      ['a non-finite number', { score: Number.NaN }, 'Invalid response: score: is NaN, which is not a JSON number'],
    ])('%s', (_, init, message) => {
      expect(decode(init)).toThrow(ContractError);
      expect(decode(init)).toThrow(message);
    });

    it('and bytes that are not the response message', () => {
      expect(() => codec.decodeResponse(new Uint8Array([0xff, 0xff, 0xff]))).toThrow(/^Invalid response: /);
    });
  });
});
