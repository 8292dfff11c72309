import {
  createFileRegistry,
  fromBinary,
  getOption,
  hasOption,
  toJson,
  type DescExtension,
  type DescField,
  type DescMethod,
  type DescOneof,
  type FileRegistry,
  type Message,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { createCommentReader } from './comments.js';
import { deriveElicitation, type ElicitOption } from './elicitation.js';
import { SchemaError } from './field-constraints.js';
import { gatewayFieldRole } from './gateway-fields.js';
import { permalinksOf, resourceLinksOf } from './result-fields.js';
import { messageToJsonSchema } from './schema.js';
import type {
  FieldConstraints,
  LongPollOption,
  OneofConstraints,
  ResourceLinkOption,
  SchemaSources,
} from './schema-sources.js';
import type { GatewayFields, LongPoll, ToolAnnotations, ToolDefinition } from './types.js';

/**
 * Derives the MCP tool catalogue from a FileDescriptorSet (with source info, for comments):
 * every rpc carrying `(quarry.mcp.v1.tool)` becomes one tool. Pure; the generator script and
 * the tests call this same function.
 *
 * Throws a CatalogueError listing every problem, each naming its rpc: an invalid or duplicate
 * tool name, a streaming rpc, a missing title or comment, contradictory annotations, or a field
 * constraint that does not fit its field.
 */
export function deriveCatalogue(descriptorSet: Uint8Array): ToolDefinition[] {
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));
  const toolOption = registry.getExtension('quarry.mcp.v1.tool');
  if (!toolOption) return [];
  const sources = schemaSources(registry);

  const problems: string[] = [];
  const tools: { tool: ToolDefinition; method: DescMethod }[] = [];
  for (const file of registry.files) {
    for (const service of file.services) {
      for (const method of service.methods) {
        const options = readOption<ToolOptions>(toolOption, method);
        if (!options) continue;
        const result = deriveTool(method, options, sources);
        if (Array.isArray(result)) problems.push(...result.map((p) => `rpc ${rpcName(method)}: ${p}`));
        else tools.push({ tool: result, method });
      }
    }
  }

  const byName = new Map<string, DescMethod[]>();
  for (const { tool, method } of tools) byName.set(tool.name, [...(byName.get(tool.name) ?? []), method]);
  for (const [name, methods] of byName) {
    if (methods.length > 1)
      problems.push(`tool name "${name}" is used by more than one rpc: ${methods.map(rpcName).join(', ')}`);
  }

  const elicitOption = registry.getExtension('quarry.mcp.v1.elicit');
  for (const entry of tools) {
    const option = readOption<ElicitOption>(elicitOption, entry.method);
    if (!option) continue;
    const answer = tools.find(({ tool }) => tool.name === option.answerTool);
    const result = deriveElicitation(entry.method, option, answer, sources.describe);
    if (Array.isArray(result)) problems.push(...result.map((p) => `rpc ${rpcName(entry.method)}: ${p}`));
    else entry.tool = { ...entry.tool, elicitation: result };
  }

  if (problems.length > 0) {
    throw new CatalogueError(`Cannot derive the MCP tool catalogue:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return tools.map(({ tool }) => tool).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A proto definition that cannot become a valid tool. The message names each rpc. */
export class CatalogueError extends Error {
  override name = 'CatalogueError';
}

const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** `(quarry.mcp.v1.tool)` in its proto3 JSON form. */
interface ToolOptions {
  name?: string;
  title?: string;
  annotations?: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean; openWorld?: boolean };
  liveness?: boolean;
}

function deriveTool(method: DescMethod, options: ToolOptions, sources: SchemaSources): ToolDefinition | string[] {
  const problems: string[] = [];
  const name = options.name ?? '';
  const title = options.title?.trim() ?? '';
  const description = sources.describe(method) ?? '';
  const hints = options.annotations ?? {};

  if (!TOOL_NAME_PATTERN.test(name)) {
    problems.push(
      `tool name ${JSON.stringify(name)} must be snake_case matching ${TOOL_NAME_PATTERN.source} (at most 64 characters)`,
    );
  }
  if (method.methodKind !== 'unary') {
    problems.push(`is ${method.methodKind.replace('_', '-')}; a tool call is exactly one unary call`);
  }
  if (!title) problems.push('the tool needs a title');
  if (!description) problems.push("the rpc needs a leading comment: it is the tool's description");
  if (hints.readOnly && hints.destructive) problems.push('a read-only tool cannot be destructive');
  if (options.liveness && !hints.readOnly) problems.push('a liveness check must be read-only');
  if (!hints.readOnly && hints.destructive === undefined) {
    problems.push('a tool that is not read-only must set annotations.destructive (true or false)');
  }

  let inputSchema;
  let outputSchema;
  try {
    inputSchema = messageToJsonSchema(method.input, 'input', sources);
    outputSchema = messageToJsonSchema(method.output, 'output', sources);
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    problems.push(error.message);
  }
  const gatewayFields = gatewayFieldsOf(method, problems);
  const longPoll = longPollOf(method, sources, problems);
  const resourceLinks = resourceLinksOf(method, sources, problems);
  const permalinks = permalinksOf(method, sources, problems);
  if (problems.length > 0 || !inputSchema || !outputSchema) return problems;

  const annotations: ToolAnnotations = {
    readOnlyHint: hints.readOnly ?? false,
    destructiveHint: hints.destructive ?? false,
    idempotentHint: hints.idempotent ?? false,
    openWorldHint: hints.openWorld ?? false,
  };
  const service = method.parent.typeName;
  return {
    name,
    title,
    description,
    inputSchema,
    outputSchema,
    annotations,
    rpc: { service, method: method.name, path: `/${service}/${method.name}`, ...(longPoll ? { longPoll } : {}) },
    ...(gatewayFields ? { gatewayFields } : {}),
    ...(resourceLinks.length > 0 ? { resourceLinks } : {}),
    ...(permalinks.length > 0 ? { permalinks } : {}),
    ...(options.liveness ? { liveness: true as const } : {}),
  };
}

// The gateway's side-channel fields of an rpc (root level only), checked for a sane shape.
function gatewayFieldsOf(method: DescMethod, problems: string[]): GatewayFields | undefined {
  const fields: { -readonly [K in keyof GatewayFields]: string } = {};
  const collect = (message: DescMethod['input'], side: 'request' | 'response') => {
    for (const field of message.fields) {
      const role = gatewayFieldRole(field);
      if (!role) continue;
      const expected = role === 'clientSampling' || role === 'callBudget' ? 'request' : 'response';
      if (side !== expected)
        problems.push(`${field.message!.typeName} (field ${field.name}) belongs in the ${expected}, not the ${side}`);
      else if (field.fieldKind !== 'message')
        problems.push(`${field.message!.typeName} (field ${field.name}) must be a singular field`);
      else if (fields[role]) problems.push(`has more than one ${field.message!.typeName} field`);
      else fields[role] = field.jsonName;
    }
  };
  collect(method.input, 'request');
  collect(method.output, 'response');
  if (fields.samplingRequest && !fields.clientSampling) {
    problems.push(
      'a response with a quarry.mcp.v1.SamplingRequest needs a quarry.mcp.v1.ClientSampling request field (the answer comes back in it)',
    );
  }
  return Object.keys(fields).length > 0 ? fields : undefined;
}

// The request field marked `(quarry.mcp.v1.long_poll)`, if any (its kind and bounds are checked
// with the input schema): one per request, never in a response.
function longPollOf(method: DescMethod, sources: SchemaSources, problems: string[]): LongPoll | undefined {
  for (const field of method.output.fields.filter((f) => sources.longPoll(f)))
    problems.push(`field ${field.parent.typeName}.${field.name}: long_poll belongs in the request, not the response`);
  const marked = method.input.fields.filter((f) => sources.longPoll(f));
  if (marked.length > 1) {
    problems.push(`has more than one long_poll field: ${marked.map((f) => f.name).join(', ')}`);
    return undefined;
  }
  const [field] = marked;
  return field ? { field: field.jsonName, maxSeconds: sources.longPoll(field)!.maxSeconds ?? 0 } : undefined;
}

function schemaSources(registry: FileRegistry): SchemaSources {
  const fieldOption = registry.getExtension('quarry.mcp.v1.field');
  const longPollOption = registry.getExtension('quarry.mcp.v1.long_poll');
  const resourceLinkOption = registry.getExtension('quarry.mcp.v1.resource_link');
  const permalinkOption = registry.getExtension('quarry.mcp.v1.permalink');
  const oneofOption = registry.getExtension('quarry.mcp.v1.oneof');
  return {
    describe: createCommentReader(),
    fieldConstraints: (field) => readOption<FieldConstraints>(fieldOption, field),
    longPoll: (field) => readOption<LongPollOption>(longPollOption, field),
    resourceLink: (field) => readOption<ResourceLinkOption>(resourceLinkOption, field),
    permalink: (field) =>
      permalinkOption !== undefined && hasOption(field, permalinkOption) && getOption(field, permalinkOption) === true,
    oneofConstraints: (oneof) => readOption<OneofConstraints>(oneofOption, oneof),
  };
}

// A custom option's value in proto3 JSON form (only the members that are set), or undefined.
function readOption<T>(option: DescExtension | undefined, desc: DescMethod | DescField | DescOneof): T | undefined {
  if (!option?.message || !hasOption(desc, option)) return undefined;
  return toJson(option.message, getOption(desc, option) as Message) as T;
}

function rpcName(method: DescMethod): string {
  return `${method.parent.typeName}.${method.name}`;
}
