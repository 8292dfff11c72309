import { type Identity, QuarryError, status } from '@quarry/grpc';
import type { Principal } from '../../identity/schema.js';

/** Where a tool's rpc is served: a gRPC channel to the owning service, or in-process. */
export interface ToolBackend {
  unary(path: string, request: Uint8Array, call: BackendCall): Promise<Uint8Array>;
}

/** What every rpc of a tool call carries: whose call it is, its deadline, and its cancellation. */
export interface BackendCall {
  identity: Identity;
  principal: Principal;
  deadlineMs: number;
  signal?: AbortSignal;
}

interface UnaryMethodDefinition {
  path: string;
  requestDeserialize(bytes: Buffer): unknown;
  responseSerialize(value: unknown): Buffer;
}

export type LocalImplementation = Record<string, (request: never, call: BackendCall) => Promise<unknown>>;

/**
 * Serves a proto service inside the gateway (the identity service: its data is the gateway's
 * own). It takes the same generated service definition a gRPC server would, and the calls take
 * the same encode → handler → decode path, so tools cannot tell a local service from a remote one.
 */
export function createLocalBackend(
  definition: Record<string, UnaryMethodDefinition>,
  implementation: LocalImplementation,
): ToolBackend {
  const byPath = new Map(
    Object.entries(definition).map(([method, def]) => {
      const handler = implementation[method];
      if (!handler) throw new Error(`Local service is missing an implementation for ${def.path}`);
      return [def.path, { def, handler }] as const;
    }),
  );
  return {
    async unary(path, request, call) {
      const entry = byPath.get(path);
      if (!entry) throw new QuarryError('UNIMPLEMENTED', status.UNIMPLEMENTED, `No local handler for ${path}`);
      const decoded = entry.def.requestDeserialize(Buffer.from(request));
      const response = await entry.handler(decoded as never, call);
      return entry.def.responseSerialize(response);
    },
  };
}
