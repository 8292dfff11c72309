import {
  createFileRegistry,
  fromBinary,
  fromJson,
  ScalarType,
  toBinary,
  toJson,
  type DescEnum,
  type DescField,
  type DescMessage,
  type FileRegistry,
  type JsonValue,
} from '@bufbuild/protobuf';
import { isFieldError } from '@bufbuild/protobuf/reflect';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { enumValueNames, NULL_VALUE_ENUM } from './catalogue/enums.js';
import { FORMATS, wellKnownSchema } from './catalogue/schema.js';
import type { ToolDefinition } from './catalogue/types.js';
import { compileGeneratedDecoder } from './generated-result.js';
import { compileResultDecoder, type ResultDecoder } from './result-decoder.js';

// MEASUREMENT ONLY: which result decoder the codec tries first (the benchmark's gateway CPU
// comparison sets it per gateway process): `direct` (default), `generated` or `reflective`.
const RESULT_DECODER = process.env.QUARRY_BENCH_RESULT_DECODER ?? 'direct';

/**
 * Translates between a tool's JSON arguments/results and the protobuf bytes of its rpc, using
 * the descriptors alone, so the gateway needs no code per tool. Arguments are validated against
 * the tool's input schema first (the same JSON Schema clients see), then encoded with
 * protobuf-es; results are decoded with every implicit field present, matching the output
 * schema. What the schema shows differently from proto3 JSON is mapped both ways: enum short
 * names ("search" ↔ STEP_TYPE_SEARCH) and 64-bit integers as numbers.
 */
export interface ToolCodec {
  /**
   * JSON arguments → request bytes. Throws ContractError naming each bad field. `gateway` adds
   * the gateway's own root fields (see ToolDefinition.gatewayFields) in proto3 JSON, after the
   * arguments were validated: a caller cannot send them.
   */
  encodeRequest(args: unknown, gateway?: Readonly<Record<string, JsonValue>>): Uint8Array;
  /** Response bytes → JSON result (structuredContent). Throws ContractError on bad data. */
  decodeResponse(bytes: Uint8Array): Record<string, unknown>;
}

export interface ContractIssue {
  /** Field path in JSON naming, e.g. `steps[2].type`; empty for the whole value. */
  readonly path: string;
  readonly problem: string;
}

/** Arguments or a result that do not fit the tool's contract. */
export class ContractError extends Error {
  override name = 'ContractError';
  constructor(
    /** `arguments` (the caller's fault) or `response` (the service's fault). */
    readonly subject: 'arguments' | 'response',
    readonly issues: readonly ContractIssue[],
  ) {
    super(`Invalid ${subject}: ${issues.map((i) => `${i.path || subject}: ${i.problem}`).join('; ')}`);
  }
}

/**
 * The codec of a tool over the descriptors in `descriptorSet`, built on first use and cached per
 * (descriptor set, tool) object pair: build them at startup so no request pays for schema
 * compilation or descriptor work. index.ts defaults `descriptorSet` to the embedded one.
 */
export function createToolCodec(tool: ToolDefinition, descriptorSet: Uint8Array): ToolCodec {
  const registry = registryFor(descriptorSet);
  let codecs = codecCache.get(registry);
  if (!codecs) codecCache.set(registry, (codecs = new WeakMap()));
  let codec = codecs.get(tool);
  if (!codec) codecs.set(tool, (codec = buildCodec(tool, registry)));
  return codec;
}

const registryCache = new WeakMap<Uint8Array, FileRegistry>();
const codecCache = new WeakMap<FileRegistry, WeakMap<ToolDefinition, ToolCodec>>();

function registryFor(descriptorSet: Uint8Array): FileRegistry {
  let registry = registryCache.get(descriptorSet);
  if (!registry)
    registryCache.set(
      descriptorSet,
      (registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet))),
    );
  return registry;
}

function buildCodec(tool: ToolDefinition, registry: FileRegistry): ToolCodec {
  const { input, output } = rpcOf(tool, registry);
  const validate = schemaValidator().compile(tool.inputSchema);
  const toProtoJson = messageConverter(input, 'input', new Map());
  const decoders = buildResultDecoders(output, registry);
  const { reflective } = decoders;
  const direct =
    RESULT_DECODER === 'reflective'
      ? undefined
      : RESULT_DECODER === 'generated'
        ? compileGeneratedDecoder(output)
        : decoders.direct;

  return {
    encodeRequest(args, gateway) {
      if (!validate(args)) throw new ContractError('arguments', ajvIssues(validate.errors ?? []));
      const nested = tooDeeplyNested(args);
      if (nested) {
        throw new ContractError('arguments', [
          {
            path: nested,
            problem: `nests objects and arrays more than ${MAX_ARGUMENT_NESTING} levels deep, which cannot be sent; flatten it`,
          },
        ]);
      }
      let json = (toProtoJson ? toProtoJson(args, '') : args) as JsonValue;
      if (gateway) json = { ...(json as Record<string, JsonValue>), ...gateway };
      try {
        return toBinary(input, fromJson(input, json, { registry }));
      } catch (error) {
        // What JSON Schema cannot say (e.g. an int64 map key out of range) protobuf-es still
        // checks; its FieldError names the field (not its parents).
        const cause = (error as Error).cause;
        if (!isFieldError(cause))
          throw new ContractError('arguments', [{ path: '', problem: (error as Error).message }]);
        const field = cause.field();
        throw new ContractError('arguments', [
          { path: field.kind === 'field' ? field.jsonName : field.name, problem: cause.message },
        ]);
      }
    },
    decodeResponse(bytes) {
      if (direct) {
        try {
          return direct(bytes);
        } catch {
          // Not decodable there (e.g. a value the contract cannot carry): the reflective path
          // answers, or names what is wrong.
        }
      }
      return reflective(bytes);
    },
  };
}

function rpcOf(tool: ToolDefinition, registry: FileRegistry) {
  const method = registry.getService(tool.rpc.service)?.methods.find((m) => m.name === tool.rpc.method);
  if (!method)
    throw new Error(`Tool ${tool.name}: rpc ${tool.rpc.service}.${tool.rpc.method} is not in the descriptor set`);
  return method;
}

/**
 * A result's two decoders: reflective (protobuf-es `fromBinary` + `toJson` with every implicit
 * field, then the output conversion) and direct (result-decoder.ts: the same JSON in one pass,
 * twice as fast; undefined for results it does not cover). The codec takes the direct one and falls
 * back to the reflective one; tests hold them side by side.
 */
export function buildResultDecoders(
  output: DescMessage,
  registry: FileRegistry,
): { direct?: ResultDecoder; reflective: ResultDecoder } {
  const fromProtoJson = messageConverter(output, 'output', new Map());
  const reflective = (bytes: Uint8Array) => {
    let json: Record<string, unknown>;
    try {
      json = toJson(output, fromBinary(output, bytes), { alwaysEmitImplicit: true, registry }) as Record<
        string,
        unknown
      >;
    } catch (error) {
      throw new ContractError('response', [{ path: '', problem: (error as Error).message }]);
    }
    return (fromProtoJson ? fromProtoJson(json, '') : json) as Record<string, unknown>;
  };
  const wellKnownConverters = new Map<DescMessage, ReturnType<typeof wellKnownConverter>>();
  const direct = compileResultDecoder(output, registry, {
    enumValue: (descEnum) => enumConverter(descEnum, 'output'),
    omitted: OMIT,
    wellKnown(message, bytes) {
      const json = toJson(message, fromBinary(message, bytes), { alwaysEmitImplicit: true, registry });
      if (!wellKnownConverters.has(message)) wellKnownConverters.set(message, wellKnownConverter(message, 'output'));
      const convert = wellKnownConverters.get(message);
      return convert ? convert(json, '') : json;
    },
  });
  return { direct, reflective };
}

/**
 * How deep an argument's objects and arrays may nest, counting the argument's own value as 1.
 * Free-form JSON (google.protobuf.Struct) costs three protobuf message levels per JSON level,
 * and the generated decoders refuse more than 100 levels (a guard against stack exhaustion):
 * 32 is the most that always decodes, so deeper JSON is refused here with a clear message
 * instead of failing inside the service.
 */
export const MAX_ARGUMENT_NESTING = 32;

// The path of the first top-level argument nested deeper than the limit, if any (bounded walk).
function tooDeeplyNested(args: unknown): string | undefined {
  if (!args || typeof args !== 'object') return undefined;
  const exceeds = (value: unknown, depth: number): boolean => {
    if (!value || typeof value !== 'object') return false;
    if (depth > MAX_ARGUMENT_NESTING) return true;
    for (const child of Array.isArray(value) ? value : Object.values(value)) if (exceeds(child, depth + 1)) return true;
    return false;
  };
  return Object.entries(args).find(([, value]) => exceeds(value, 1))?.[0];
}

let sharedAjv: Ajv2020 | undefined;

// One validator for all tools: draft 2020-12, strict (a schema Ajv does not fully understand is
// an error at startup, not a check silently skipped), every error reported at once so a model
// can fix all its arguments in one go.
function schemaValidator(): Ajv2020 {
  if (!sharedAjv) {
    sharedAjv = new Ajv2020({ strict: true, allErrors: true, verbose: true });
    addFormats.default(sharedAjv as never, [...FORMATS] as never);
  }
  return sharedAjv;
}

function ajvIssues(errors: readonly ErrorObject[]): ContractIssue[] {
  const issues = new Map<string, ContractIssue>();
  const add = (path: string, problem: string) => issues.set(`${path}\0${problem}`, { path, problem });
  for (const error of errors) {
    // Errors inside the branches of an `anyOf` (an exactly-one oneof) restate the anyOf's own.
    if (error.schemaPath.includes('/anyOf/')) continue;
    const path = pointerToPath(error.instancePath);
    const params = error.params as Record<string, unknown>;
    const together = /\/dependentSchemas\/([^/]+)\/properties\/[^/]+\/false schema$/.exec(error.schemaPath);
    if (together) {
      add(path, `cannot be set together with ${unescapePointer(together[1]!)}`);
      continue;
    }
    switch (error.keyword) {
      case 'additionalProperties':
        add(joinPath(path, String(params.additionalProperty)), 'is not a known field');
        break;
      case 'required':
        add(joinPath(path, String(params.missingProperty)), 'is required');
        break;
      case 'enum':
        add(path, `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
        break;
      case 'anyOf':
        add(path, `needs exactly one of ${requiredNames(error.schema).join(', ')}`);
        break;
      default:
        add(path, error.message ?? `fails ${error.keyword}`);
    }
  }
  return [...issues.values()];
}

// The members of an exactly-one oneof group, read from the `required` lists of its `anyOf`.
function requiredNames(schema: unknown): string[] {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'required' && Array.isArray(value)) value.forEach((name) => names.add(String(name)));
        else visit(value);
      }
    }
  };
  visit(schema);
  return [...names];
}

function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map(unescapePointer)
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : joinPath(path, segment)), '');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function joinPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

// --- JSON shape conversion -------------------------------------------------------------------
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

function messageConverter(
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
