import { expect } from '@jest/globals';
import { createFileRegistry, fromBinary, type DescMessage, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { ContractError, createToolCodec, type ToolDefinition } from '@quarry/contracts';

// The result messages a test decodes, each with its tool's codec (result-decoding.test.ts).

export interface Subject {
  name: string;
  desc: DescMessage;
  codec: { decodeResponse(bytes: Uint8Array): Record<string, unknown> };
}

/**
 * The fields a result must always show (what its output schema requires): lists, maps and every
 * scalar without explicit presence, whatever its value. Enums are left out when unspecified,
 * message fields when unset.
 */
export function missingFields(desc: DescMessage, json: Record<string, unknown>): string[] {
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

export function subjectsOf(tools: readonly ToolDefinition[], set: Uint8Array): Subject[] {
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
export function decoded(subject: Subject, bytes: Uint8Array): string {
  try {
    return JSON.stringify(subject.codec.decodeResponse(bytes));
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    expect(error.subject).toBe('response');
    return `error: ${error.message}`;
  }
}
