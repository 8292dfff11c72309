import {
  createFileRegistry,
  type DescMethod,
  fromBinary,
  fromJson,
  type JsonValue,
  toBinary,
  toJson,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { descriptorSet, toolCatalogue } from '@quarry/contracts';
import { QuarryError, status } from '@quarry/grpc';
import type { Principal, ToolBackend } from '@quarry/gateway';

// The services behind the gateway, stubbed at the wire: each tool's rpc gets the request bytes
// the gateway's codec really encodes, and answers bytes protobuf-es encodes from a proto3 JSON
// reply a test gives. The gateway's whole MCP layer runs as in production (catalogue, codecs,
// output validation, call modes, resources, prompts); only the services are missing.

/** What a stubbed rpc was asked: the tool, its request in proto3 JSON, whose call, and its deadline. */
export interface StubCall {
  tool: string;
  request: Record<string, unknown>;
  principal: Principal;
  deadlineMs: number;
}

/** A stubbed rpc's answer: a proto3 JSON reply, or a QuarryError to throw (as a service would). */
export type StubReply = (
  request: Record<string, unknown>,
  call: { principal: Principal; signal?: AbortSignal },
) => JsonValue | Promise<JsonValue>;

const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSet));

function methodOf(path: string): DescMethod {
  const [, service, name] = path.split('/');
  const method = registry.getService(service!)?.methods.find((m) => m.name === name);
  if (!method) throw new Error(`no rpc ${path} in the descriptor set`);
  return method;
}

const toolOfPath = new Map(toolCatalogue.map((tool) => [tool.rpc.path, tool.name]));

export interface StubBackends {
  /** One backend per service of the catalogue: pass to `createTools`. */
  readonly backends: Record<string, ToolBackend>;
  /** Every rpc made, in order. */
  readonly calls: StubCall[];
  /** Sets how a tool's rpc answers (replacing any earlier reply). */
  reply(tool: string, answer: StubReply): void;
}

/**
 * Stub services for every tool. `ping` answers as the identity service does (who the caller is);
 * any other rpc without a reply fails UNIMPLEMENTED, so a test never passes on an rpc it did not
 * expect.
 */
export function stubBackends(): StubBackends {
  const replies = new Map<string, StubReply>();
  const calls: StubCall[] = [];
  const backend: ToolBackend = {
    async unary(path, bytes, call) {
      const method = methodOf(path);
      const request = toJson(method.input, fromBinary(method.input, bytes), { registry }) as Record<string, unknown>;
      const tool = toolOfPath.get(path) ?? path;
      calls.push({ tool, request, principal: call.principal, deadlineMs: call.deadlineMs });
      const reply = replies.get(tool);
      if (!reply) throw new QuarryError('UNIMPLEMENTED', status.UNIMPLEMENTED, `no stub reply for ${tool}`);
      const json = await reply(request, { principal: call.principal, signal: call.signal });
      return toBinary(method.output, fromJson(method.output, json, { registry }));
    },
  };
  replies.set('ping', (_request, { principal }) => ({
    message: `Connected to Quarry as ${principal.name} (${principal.email}).`,
    orgSlug: principal.orgSlug,
    userEmail: principal.email,
    userName: principal.name,
  }));
  return {
    backends: Object.fromEntries(toolCatalogue.map((tool) => [tool.rpc.service, backend])),
    calls,
    reply: (tool, answer) => void replies.set(tool, answer),
  };
}
