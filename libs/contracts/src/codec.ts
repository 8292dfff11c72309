import {
  createFileRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescMessage,
  type FileRegistry,
  type JsonValue,
} from '@bufbuild/protobuf';
import { isFieldError } from '@bufbuild/protobuf/reflect';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { ajvIssues, schemaValidator } from './argument-validation.js';
import type { ToolDefinition } from './catalogue/types.js';
import { ContractError } from './contract-error.js';
import { messageConverter } from './json-shape.js';

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
  /**
   * JSON arguments → the request as proto3 JSON, checked exactly as `encodeRequest` checks them
   * (the input schema, the nesting bound; ContractError naming each bad field) and with the same
   * shape conversion (enum short names as their numbers), but not encoded: for a service that
   * builds its generated request with ts-proto's `fromJSON` (store_research_batch's items), so
   * no second protobuf API runs per item. Exact for a request the input schema fully bounds
   * (no 64-bit map keys, timestamps or other values only protobuf-es's own parsing checks).
   */
  requestJson(args: unknown): JsonValue;
  /** Response bytes → JSON result (structuredContent). Throws ContractError on bad data. */
  decodeResponse(bytes: Uint8Array): Record<string, unknown>;
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
  const decodeResult = resultDecoder(output, registry);

  function requestJson(args: unknown): JsonValue {
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
    return (toProtoJson ? toProtoJson(args, '') : args) as JsonValue;
  }

  return {
    requestJson,
    encodeRequest(args, gateway) {
      let json = requestJson(args);
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
    decodeResponse: decodeResult,
  };
}

function rpcOf(tool: ToolDefinition, registry: FileRegistry) {
  const method = registry.getService(tool.rpc.service)?.methods.find((m) => m.name === tool.rpc.method);
  if (!method)
    throw new Error(`Tool ${tool.name}: rpc ${tool.rpc.service}.${tool.rpc.method} is not in the descriptor set`);
  return method;
}

/**
 * Response bytes → the tool's JSON result, with protobuf-es alone: `fromBinary`, `toJson` with
 * every implicit field (what the output schema expects), then the output shape conversion. A
 * hand-written one-pass decoder did not save enough of the gateway's CPU to be worth keeping
 * beside the library (ADR 0022).
 */
function resultDecoder(output: DescMessage, registry: FileRegistry): (bytes: Uint8Array) => Record<string, unknown> {
  const fromProtoJson = messageConverter(output, 'output', new Map());
  return (bytes) => {
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
}

/**
 * How deep an argument's objects and arrays may nest, counting the argument's own value as 1.
 * Free-form JSON (google.protobuf.Struct) costs three protobuf message levels per JSON level,
 * and the generated decoders refuse more than 100 levels (a guard against stack exhaustion):
 * 32 is the most that always decodes, so deeper JSON is refused here with a clear message
 * instead of failing inside the service.
 */
const MAX_ARGUMENT_NESTING = 32;

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
