import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { enumValueNames } from './catalogue/enums.js';
import * as artifactV1 from './gen/quarry/artifact/v1/artifact.js';
import * as extractionV1 from './gen/quarry/extraction/v1/extraction.js';
import * as identityV1 from './gen/quarry/identity/v1/identity.js';
import * as planV1 from './gen/quarry/plan/v1/plan.js';
import * as searchV1 from './gen/quarry/search/v1/search.js';

// MEASUREMENT ONLY (the gateway CPU comparison of the result decoders): ts-proto's generated
// `decode`, then a conversion of its object to the tool JSON the codec emits. It covers what
// get_plan_status's result holds (scalars, enums, nested messages, lists, Timestamp as Date) and
// refuses the rest (oneofs, maps, Struct, wrappers, Duration, bytes), which the codec then decodes
// reflectively.

type Decode = (bytes: Uint8Array) => Record<string, unknown>;
type Convert = (value: unknown) => unknown;

const NAMESPACES: readonly Record<string, unknown>[] = [artifactV1, extractionV1, identityV1, planV1, searchV1];

function generatedDecode(message: DescMessage): Decode | undefined {
  const pkg = message.file.proto.package;
  const local = message.typeName.slice(pkg.length + 1).replace(/\./g, '_');
  for (const ns of NAMESPACES) {
    if ((ns as { protobufPackage?: string }).protobufPackage !== pkg) continue;
    const fns = ns[local] as { decode?: Decode } | undefined;
    if (fns?.decode) return (bytes) => fns.decode!(bytes);
  }
  return undefined;
}

class NotCovered extends Error {}

const SIXTY_FOUR = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);

function timestampJson(value: unknown): string {
  const ms = (value as Date).getTime();
  if (!Number.isFinite(ms) || ms < -62135596800000 || ms > 253402300799999) throw new NotCovered();
  const iso = new Date(ms).toISOString();
  return ms % 1000 === 0 ? `${iso.slice(0, -5)}Z` : iso;
}

function fieldConverter(field: DescField, messages: Map<DescMessage, Convert>): Convert {
  if (field.message) {
    if (field.message.typeName === 'google.protobuf.Timestamp') return timestampJson;
    if (field.message.typeName.startsWith('google.protobuf.')) throw new NotCovered();
    return messageConverter(field.message, messages);
  }
  if (field.enum) {
    const names = new Map(enumValueNames(field.enum).map((v) => [v.number, v.short]));
    return (value) => {
      const short = names.get(value as number);
      if (short !== undefined) return short;
      if (value === 0) return OMIT;
      throw new NotCovered();
    };
  }
  const scalar = field.scalar!;
  if (scalar === ScalarType.BYTES) throw new NotCovered();
  if (scalar === ScalarType.FLOAT || scalar === ScalarType.DOUBLE)
    return (value) => {
      if (!Number.isFinite(value)) throw new NotCovered();
      return value;
    };
  if (SIXTY_FOUR.has(scalar))
    return (value) => {
      if (!Number.isSafeInteger(value)) throw new NotCovered();
      return value;
    };
  return (value) => value;
}

const OMIT = Symbol('omit');

function messageConverter(message: DescMessage, messages: Map<DescMessage, Convert>): Convert {
  const cached = messages.get(message);
  if (cached) return cached;
  if (message.oneofs.length > 0) throw new NotCovered();
  const steps: ((source: Record<string, unknown>, target: Record<string, unknown>) => void)[] = [];
  const convert: Convert = (value) => {
    const source = value as Record<string, unknown>;
    const target: Record<string, unknown> = {};
    for (const step of steps) step(source, target);
    return target;
  };
  messages.set(message, convert);
  for (const field of [...message.fields].sort((a, b) => a.number - b.number)) {
    if (field.fieldKind === 'map') throw new NotCovered();
    const convertValue = fieldConverter(field, messages);
    const { localName, jsonName } = field;
    if (field.fieldKind === 'list') {
      steps.push((source, target) => {
        const list = source[localName] as unknown[];
        target[jsonName] = list.map((item) => {
          const converted = convertValue(item);
          if (converted === OMIT) throw new NotCovered();
          return converted;
        });
      });
    } else {
      steps.push((source, target) => {
        const item = source[localName];
        if (item === undefined) return;
        const converted = convertValue(item);
        if (converted !== OMIT) target[jsonName] = converted;
      });
    }
  }
  return convert;
}

/** The generated-code decoder of a result, or undefined when it is not covered. */
export function compileGeneratedDecoder(message: DescMessage): Decode | undefined {
  const decode = generatedDecode(message);
  if (!decode) return undefined;
  let convert: Convert;
  try {
    convert = messageConverter(message, new Map());
  } catch (error) {
    if (error instanceof NotCovered) return undefined;
    throw error;
  }
  return (bytes) => convert(decode(bytes)) as Record<string, unknown>;
}
