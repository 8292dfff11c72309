import { ScalarType, type DescEnum, type DescMessage, type Registry } from '@bufbuild/protobuf';
import { base64Encode, BinaryReader, getTextEncoding, WireType } from '@bufbuild/protobuf/wire';
import { isAscii } from 'node:buffer';

/**
 * A decoder straight from a result message's bytes to the JSON a tool returns: the same value,
 * key for key and in the same key order, as the codec's reflective path (protobuf-es
 * `fromBinary`, then `toJson` with every implicit field, then the output shape conversion), in
 * one pass and without building protobuf-es messages, which cost the gateway 35 µs for a 20-step
 * get_plan_status (this: ~18 µs). It throws wherever its result might not be that value (a value
 * the contract cannot carry, malformed bytes): the codec then takes the reflective path, which
 * gives the canonical error, or the answer. test/result-decoder.test.ts holds the two side by
 * side on random and hand-made bytes.
 *
 * Only what the contracts use is compiled (proto3: open enums, no groups, no required fields,
 * no extensions of a result message, no Any); for other results `compileResultDecoder` returns
 * undefined and the codec stays reflective.
 */
export type ResultDecoder = (bytes: Uint8Array) => Record<string, unknown>;

/** Anything this decoder leaves to the reflective path. */
class NotDecodedHere extends Error {}

/** protobuf-es's default recursion limit: input nested deeper fails there, so it must not succeed here. */
const RECURSION_LIMIT = 100;

/** How an enum value reads in a result: its short name, left out (an unspecified value), or not readable here. */
const OMIT = Symbol('omit');
type EnumJson = (value: number) => string | null | typeof OMIT;

const { decodeUtf8 } = getTextEncoding();

/** One reader goes through a whole result; nested messages are ranges of its bytes. */
class ResultReader extends BinaryReader {
  private readonly text: Buffer;
  constructor(readonly source: Uint8Array) {
    super(source);
    this.text = Buffer.from(source.buffer, source.byteOffset, source.byteLength);
  }

  /** As protobuf-es reads a string, with ASCII of any length sliced natively (ids, instructions). */
  override string(strict?: boolean): string {
    const bytes = this.bytes();
    return isAscii(bytes)
      ? this.text.toString('latin1', this.pos - bytes.byteLength, this.pos)
      : decodeUtf8(bytes, strict);
  }
}

interface MessagePlan {
  /** A fresh decoding state (one per message value). */
  start(): unknown;
  /** Reads fields up to `end` into `state`; a second call merges, like a repeated occurrence on the wire. */
  read(state: unknown, reader: ResultReader, end: number, depth: number): void;
  finish(state: unknown): unknown;
}

/** What the codec's output conversion does, for the decoder to do the same. */
export interface ResultShape {
  /** The conversion of an enum's proto3 JSON value name in a result; undefined when there is none (NullValue). */
  enumValue(descEnum: DescEnum): ((name: string, path: string) => unknown) | undefined;
  /** What `enumValue` returns for a value a result leaves out. */
  omitted: symbol;
  /** A well-known type's JSON in a result (the rare ones not decoded here), from its bytes. */
  wellKnown(message: DescMessage, bytes: Uint8Array): unknown;
}

export function compileResultDecoder(
  message: DescMessage,
  registry: Registry,
  shape: ResultShape,
): ResultDecoder | undefined {
  if (!supported(message, registry)) return undefined;
  const plans = new Map<DescMessage, MessagePlan>();
  const enums = new Map<DescEnum, EnumJson>();
  const enumOf = (descEnum: DescEnum) => {
    let json = enums.get(descEnum);
    if (!json) enums.set(descEnum, (json = enumJson(descEnum, shape)));
    return json;
  };
  const planOf = (desc: DescMessage): MessagePlan => {
    let plan = plans.get(desc);
    if (!plan) {
      const lazy: MessagePlan = {
        start: () => plan!.start(),
        read: (state, reader, end, depth) => plan!.read(state, reader, end, depth),
        finish: (state) => plan!.finish(state),
      };
      plans.set(desc, lazy); // recursive messages resolve to this while their fields compile
      plan = messagePlan(desc, planOf, enumOf, shape);
      plans.set(desc, plan);
    }
    return plan;
  };
  const root = planOf(message);
  return (bytes) => {
    const state = root.start();
    root.read(state, new ResultReader(bytes), bytes.byteLength, 1);
    return root.finish(state) as Record<string, unknown>;
  };
}

// An enum value's JSON in a result, by number, from the codec's own conversion of its name.
function enumJson(descEnum: DescEnum, shape: ResultShape): EnumJson {
  const convert = shape.enumValue(descEnum);
  if (!convert) return () => null;
  const byNumber = new Map<number, string | typeof OMIT>();
  for (const { number } of descEnum.values) {
    try {
      const converted = convert(descEnum.value[number]!.jsonName, '');
      if (converted === shape.omitted) byNumber.set(number, OMIT);
      else if (typeof converted === 'string') byNumber.set(number, converted);
    } catch {
      // A value the conversion refuses stays out of the table: the reflective path reports it.
    }
  }
  return (value) => {
    const json = byNumber.get(value);
    if (json === undefined) throw new NotDecodedHere(`enum value ${value} is not one the contract knows`);
    return json;
  };
}

// Whether every message reachable from `root` is one this decoder reads exactly as protobuf-es.
function supported(root: DescMessage, registry: Registry): boolean {
  const extended = new Set<string>();
  for (const type of registry) if (type.kind === 'extension') extended.add(type.extendee.typeName);
  const seen = new Set<DescMessage>();
  const stack = [root];
  while (stack.length > 0) {
    const desc = stack.pop()!;
    if (seen.has(desc)) continue;
    seen.add(desc);
    if (desc.typeName === 'google.protobuf.Any' || extended.has(desc.typeName)) return false;
    for (const field of desc.fields) {
      if (field.presence === PRESENCE_LEGACY_REQUIRED || ('delimitedEncoding' in field && field.delimitedEncoding))
        return false;
      if (field.enum && !field.enum.open) return false;
      if (field.message) stack.push(field.message);
    }
  }
  return true;
}

// FeatureSet.FieldPresence, as DescField.presence carries it.
const PRESENCE_IMPLICIT = 2;
const PRESENCE_LEGACY_REQUIRED = 3;

type State = unknown[];
type Reader = (reader: ResultReader) => unknown;

function messagePlan(
  desc: DescMessage,
  planOf: (desc: DescMessage) => MessagePlan,
  enumOf: (descEnum: DescEnum) => EnumJson,
  shape: ResultShape,
): MessagePlan {
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp':
      return timestampPlan();
    case 'google.protobuf.Struct':
      return STRUCT;
    case 'google.protobuf.Value':
      return VALUE;
    case 'google.protobuf.ListValue':
      return LIST_VALUE;
  }
  if (desc.typeName.startsWith('google.protobuf.')) return delegatedPlan(desc, shape);

  // Fields in number order (toJson's key order); a oneof's current member is kept after them.
  const fields = desc.fields.concat().sort((a, b) => a.number - b.number);
  const oneofs = desc.oneofs;
  const slots = fields.length + oneofs.length;
  const readers = new Map<number, (state: State, reader: ResultReader, wireType: WireType, depth: number) => void>();
  const emitters: ((state: State, json: Record<string, unknown>) => void)[] = [];

  fields.forEach((field, slot) => {
    const oneofSlot = field.oneof ? fields.length + oneofs.indexOf(field.oneof) : -1;
    const choose = (state: State) => {
      const current = state[oneofSlot] as number | undefined;
      if (current !== slot) {
        if (current !== undefined) state[current] = undefined;
        state[oneofSlot] = slot;
      }
    };
    const put = setter(field.jsonName);
    switch (field.fieldKind) {
      case 'scalar': {
        const read = scalarReader(field.scalar, field.utf8Validation);
        const json = scalarJson(field.scalar);
        readers.set(field.number, (state, reader) => {
          if (oneofSlot >= 0) choose(state);
          state[slot] = read(reader);
        });
        const zero = scalarZero(field.scalar);
        emitters.push(
          field.presence === PRESENCE_IMPLICIT && oneofSlot < 0
            ? (state, out) => put(out, json(state[slot] ?? zero))
            : (state, out) => {
                if (state[slot] !== undefined) put(out, json(state[slot]));
              },
        );
        break;
      }
      case 'enum': {
        const json = enumOf(field.enum);
        readers.set(field.number, (state, reader) => {
          if (oneofSlot >= 0) choose(state);
          state[slot] = reader.int32();
        });
        const zero = field.enum.values[0]!.number;
        const implicit = field.presence === PRESENCE_IMPLICIT && oneofSlot < 0;
        emitters.push((state, out) => {
          const value = (state[slot] as number | undefined) ?? (implicit ? zero : undefined);
          if (value === undefined) return;
          const converted = json(value);
          if (converted !== OMIT) put(out, converted);
        });
        break;
      }
      case 'message': {
        const child = planOf(field.message);
        readers.set(field.number, (state, reader, _wireType, depth) => {
          if (oneofSlot >= 0) choose(state);
          state[slot] = readMessage(child, reader, state[slot], depth);
        });
        emitters.push((state, out) => {
          if (state[slot] !== undefined) put(out, child.finish(state[slot]));
        });
        break;
      }
      case 'list': {
        let readItem: (reader: ResultReader, depth: number) => unknown;
        let packable = false;
        if (field.listKind === 'message') {
          const child = planOf(field.message);
          readItem = (reader, depth) => child.finish(readMessage(child, reader, undefined, depth));
        } else {
          const scalar = field.listKind === 'enum' ? ScalarType.INT32 : field.scalar;
          const read = scalarReader(scalar, field.utf8Validation);
          const json = field.listKind === 'enum' ? listEnumJson(enumOf(field.enum)) : scalarJson(field.scalar);
          readItem = (reader) => json(read(reader));
          packable = scalar !== ScalarType.STRING && scalar !== ScalarType.BYTES;
        }
        readers.set(field.number, (state, reader, wireType, depth) => {
          const items = ((state[slot] as unknown[] | undefined) ??= []);
          if (packable && wireType === WireType.LengthDelimited) {
            const end = reader.uint32() + reader.pos;
            while (reader.pos < end) items.push(readItem(reader, depth));
          } else {
            items.push(readItem(reader, depth));
          }
        });
        emitters.push((state, out) => put(out, state[slot] ?? []));
        break;
      }
      case 'map': {
        const readKey = scalarReader(field.mapKey, field.utf8Validation);
        const keyZero = scalarZero(field.mapKey);
        let readValue: ValueReader;
        let valueJson: (value: unknown) => unknown;
        if (field.mapKind === 'message') {
          const child = planOf(field.message);
          readValue = (reader, previous, depth) => readMessage(child, reader, previous, depth);
          valueJson = (state) => child.finish(state ?? child.start());
        } else {
          const read =
            field.mapKind === 'enum'
              ? (reader: ResultReader) => reader.int32()
              : scalarReader(field.scalar, field.utf8Validation);
          const json = field.mapKind === 'enum' ? listEnumJson(enumOf(field.enum)) : scalarJson(field.scalar);
          const valueZero = field.mapKind === 'enum' ? field.enum.values[0]!.number : scalarZero(field.scalar);
          readValue = (reader) => read(reader);
          valueJson = (value) => json(value ?? valueZero);
        }
        readers.set(field.number, (state, reader, _wireType, depth) => {
          const record = ((state[slot] as Record<string, unknown> | undefined) ??= {});
          const [key, value] = mapEntry(reader, depth, readKey, readValue);
          setOwn(record, String(key ?? keyZero), valueJson(value));
        });
        emitters.push((state, out) => put(out, state[slot] ?? {}));
        break;
      }
    }
  });

  return {
    start: () => new Array<unknown>(slots),
    read(state, reader, end, depth) {
      if (depth > RECURSION_LIMIT) throw new NotDecodedHere('nested too deeply');
      while (reader.pos < end) {
        const [number, wireType] = reader.tag();
        const read = readers.get(number);
        if (read) read(state as State, reader, wireType, depth);
        else reader.skip(wireType, number, RECURSION_LIMIT - depth);
      }
    },
    finish(state) {
      const out: Record<string, unknown> = {};
      for (const emit of emitters) emit(state as State, out);
      return out;
    },
  };
}

// --- well-known types ----------------------------------------------------------------------

// Timestamp: an RFC 3339 string with 0, 3, 6 or 9 fractional digits, exactly as protobuf-es writes it.
const TIMESTAMP_MS_MIN = Date.parse('0001-01-01T00:00:00Z');
const TIMESTAMP_MS_MAX = Date.parse('9999-12-31T23:59:59Z');

// A plan per decoder, not one shared object: sharing these closures across every tool's decoder
// (hence every caller's timestamps) doubled get_plan_status's decode time in bench-codec.mjs.
function timestampPlan(): MessagePlan {
  return {
    start: () => ({ seconds: 0 as number | bigint | string, nanos: 0 }),
    read(state, reader, end, depth) {
      if (depth > RECURSION_LIMIT) throw new NotDecodedHere('nested too deeply');
      const timestamp = state as { seconds: number | bigint | string; nanos: number };
      while (reader.pos < end) {
        const [number, wireType] = reader.tag();
        if (number === 1) timestamp.seconds = reader.int64();
        else if (number === 2) timestamp.nanos = reader.int32();
        else reader.skip(wireType, number, RECURSION_LIMIT - depth);
      }
    },
    finish(state) {
      const { seconds, nanos } = state as { seconds: number | bigint | string; nanos: number };
      const ms = Number(seconds) * 1000;
      if (!(ms >= TIMESTAMP_MS_MIN && ms <= TIMESTAMP_MS_MAX) || nanos < 0 || nanos > 999_999_999)
        throw new NotDecodedHere('timestamp out of range');
      let z = 'Z';
      if (nanos > 0) {
        const digits = (nanos + 1_000_000_000).toString().substring(1);
        if (digits.substring(3) === '000000') z = `.${digits.substring(0, 3)}Z`;
        else if (digits.substring(6) === '000') z = `.${digits.substring(0, 6)}Z`;
        else z = `.${digits}Z`;
      }
      return isoSeconds(ms / 1000) + z;
    },
  };
}

// `new Date(seconds * 1000).toISOString()` up to the seconds (years 0001–9999 always have four
// digits there), with the date part of the last day asked for kept: a result's timestamps
// mostly fall on a few days, and toISOString per timestamp was the decoder's largest cost.
let lastDay = Number.NaN;
let lastDayPrefix = '';
function isoSeconds(seconds: number): string {
  const day = Math.floor(seconds / 86_400);
  if (day !== lastDay) {
    lastDayPrefix = new Date(day * 86_400_000).toISOString().substring(0, 11);
    lastDay = day;
  }
  const second = seconds - day * 86_400;
  return `${lastDayPrefix}${twoDigits(Math.floor(second / 3600))}:${twoDigits(Math.floor(second / 60) % 60)}:${twoDigits(second % 60)}`;
}

const twoDigits = (n: number) => (n < 10 ? `0${n}` : `${n}`);

// Struct, Value, ListValue: plain JSON. A Value must hold a kind, and a number must be finite.
const readStructKey: Reader = (reader) => reader.string(true);
const readStructValue: ValueReader = (reader, previous, depth) => readMessage(VALUE, reader, previous, depth);

const STRUCT: MessagePlan = {
  start: () => ({}),
  read(state, reader, end, depth) {
    eachEntry(reader, end, depth, () => {
      const [key, value] = mapEntry(reader, depth, readStructKey, readStructValue);
      setOwn(state as Record<string, unknown>, (key as string | undefined) ?? '', VALUE.finish(value ?? VALUE.start()));
    });
  },
  finish: (state) => state,
};

interface ValueState {
  kind?: 'null' | 'number' | 'string' | 'bool' | 'struct' | 'list';
  value?: unknown;
}

const VALUE: MessagePlan = {
  start: (): ValueState => ({}),
  read(state, reader, end, depth) {
    if (depth > RECURSION_LIMIT) throw new NotDecodedHere('nested too deeply');
    const value = state as ValueState;
    while (reader.pos < end) {
      const [number, wireType] = reader.tag();
      switch (number) {
        case 1:
          reader.int32();
          value.kind = 'null';
          value.value = null;
          break;
        case 2:
          value.kind = 'number';
          value.value = reader.double();
          break;
        case 3:
          value.kind = 'string';
          value.value = reader.string(true);
          break;
        case 4:
          value.kind = 'bool';
          value.value = reader.bool();
          break;
        case 5:
        case 6: {
          // A message member of the oneof merges into itself, and starts afresh after another member.
          const kind = number === 5 ? 'struct' : 'list';
          value.value = readMessage(
            number === 5 ? STRUCT : LIST_VALUE,
            reader,
            value.kind === kind ? value.value : undefined,
            depth,
          );
          value.kind = kind;
          break;
        }
        default:
          reader.skip(wireType, number, RECURSION_LIMIT - depth);
      }
    }
  },
  finish(state) {
    const { kind, value } = state as ValueState;
    switch (kind) {
      case 'null':
      case 'string':
      case 'bool':
        return value;
      case 'number':
        if (!Number.isFinite(value)) throw new NotDecodedHere('a Value cannot be NaN or Infinity');
        return value;
      case 'struct':
        return STRUCT.finish(value);
      case 'list':
        return LIST_VALUE.finish(value);
      default:
        throw new NotDecodedHere('a Value must have a kind');
    }
  },
};

const LIST_VALUE: MessagePlan = {
  start: () => [] as unknown[],
  read(state, reader, end, depth) {
    eachEntry(reader, end, depth, () =>
      (state as unknown[]).push(VALUE.finish(readMessage(VALUE, reader, undefined, depth))),
    );
  },
  finish: (state) => state,
};

// Struct's entries and ListValue's values: each occurrence of field 1 (length-delimited), any
// other field skipped.
function eachEntry(reader: ResultReader, end: number, depth: number, read: () => void): void {
  if (depth > RECURSION_LIMIT) throw new NotDecodedHere('nested too deeply');
  while (reader.pos < end) {
    const [number, wireType] = reader.tag();
    if (number === 1) read();
    else reader.skip(wireType, number, RECURSION_LIMIT - depth);
  }
}

/** Reads a map entry's value; a value field that occurs twice in one entry merges (messages) or wins (scalars). */
type ValueReader = (reader: ResultReader, previous: unknown, depth: number) => unknown;

// One map entry (length-delimited): its key (field 1) and value (field 2) as read, either absent
// when the entry leaves it out; any other field skipped.
function mapEntry(reader: ResultReader, depth: number, readKey: Reader, readValue: ValueReader): [unknown, unknown] {
  const end = reader.uint32() + reader.pos;
  let key: unknown;
  let value: unknown;
  while (reader.pos < end) {
    const [number, wireType] = reader.tag();
    if (number === 1) key = readKey(reader);
    else if (number === 2) value = readValue(reader, value, depth);
    else reader.skip(wireType, number, RECURSION_LIMIT - depth);
  }
  return [key, value];
}

// A length-delimited message: its state, merged into the previous occurrence's.
function readMessage(plan: MessagePlan, reader: ResultReader, previous: unknown, depth: number): unknown {
  const end = reader.uint32() + reader.pos;
  const state = previous ?? plan.start();
  plan.read(state, reader, end, depth + 1);
  return state;
}

// Other well-known types (Duration, wrappers, FieldMask, Empty) are rare in results: their bytes
// (every occurrence, merged as protobuf merges them) go through the reflective path.
function delegatedPlan(desc: DescMessage, shape: ResultShape): MessagePlan {
  return {
    start: () => [] as Uint8Array[],
    read(state, reader, end, depth) {
      if (depth > RECURSION_LIMIT) throw new NotDecodedHere('nested too deeply');
      const start = reader.pos;
      while (reader.pos < end) {
        const [number, wireType] = reader.tag();
        reader.skip(wireType, number, RECURSION_LIMIT - depth);
      }
      (state as Uint8Array[]).push(reader.source.subarray(start, end));
    },
    finish(state) {
      const chunks = state as Uint8Array[];
      return shape.wellKnown(desc, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    },
  };
}

// --- scalars -------------------------------------------------------------------------------

function scalarReader(scalar: ScalarType, utf8Validation: boolean): Reader {
  switch (scalar) {
    case ScalarType.STRING:
      return (reader) => reader.string(utf8Validation);
    case ScalarType.BOOL:
      return (reader) => reader.bool();
    case ScalarType.DOUBLE:
      return (reader) => reader.double();
    case ScalarType.FLOAT:
      return (reader) => reader.float();
    case ScalarType.INT32:
      return (reader) => reader.int32();
    case ScalarType.INT64:
      return (reader) => reader.int64();
    case ScalarType.UINT64:
      return (reader) => reader.uint64();
    case ScalarType.FIXED64:
      return (reader) => reader.fixed64();
    case ScalarType.BYTES:
      return (reader) => reader.bytes();
    case ScalarType.FIXED32:
      return (reader) => reader.fixed32();
    case ScalarType.SFIXED32:
      return (reader) => reader.sfixed32();
    case ScalarType.SFIXED64:
      return (reader) => reader.sfixed64();
    case ScalarType.SINT64:
      return (reader) => reader.sint64();
    case ScalarType.UINT32:
      return (reader) => reader.uint32();
    case ScalarType.SINT32:
      return (reader) => reader.sint32();
  }
}

function scalarZero(scalar: ScalarType): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return '';
    case ScalarType.BOOL:
      return false;
    case ScalarType.BYTES:
      return new Uint8Array(0);
    default:
      return 0;
  }
}

const identity = (value: unknown) => value;
const finiteNumber = (value: unknown) => {
  if (!Number.isFinite(value)) throw new NotDecodedHere('not a JSON number');
  return value;
};
const safeInteger = (value: unknown) => {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new NotDecodedHere('beyond ±2^53');
  return number;
};
const base64 = (value: unknown) => base64Encode(value as Uint8Array);

function scalarJson(scalar: ScalarType): (value: unknown) => unknown {
  switch (scalar) {
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return finiteNumber;
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return safeInteger;
    case ScalarType.BYTES:
      return base64;
    default:
      return identity;
  }
}

// In a list or a map an unspecified enum value cannot be left out: the reflective path refuses it.
function listEnumJson(json: EnumJson): (value: unknown) => unknown {
  return (value) => {
    const converted = json(value as number);
    if (converted === OMIT) throw new NotDecodedHere('an unspecified enum value in a list or map');
    return converted;
  };
}

// --- keys ----------------------------------------------------------------------------------

// A key named "__proto__" must become an own property, as protobuf-es writes it.
function setter(key: string): (json: Record<string, unknown>, value: unknown) => void {
  return key === '__proto__' ? (json, value) => setOwn(json, key, value) : (json, value) => (json[key] = value);
}

function setOwn(json: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(json, key, { value, enumerable: true, writable: true, configurable: true });
  else json[key] = value;
}
