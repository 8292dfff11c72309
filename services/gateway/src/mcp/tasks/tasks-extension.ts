import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from '@quarry/config';
import type { Principal } from '../../identity/schema.js';
import { mayUse } from '../../identity/tool-allowlist.js';
import type { CallerSampling, ToolDispatcher } from '../dispatcher.js';
import type { TaskRunner } from './task-runner.js';

/** The extension's identifier, in client and server capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether this request's client declared the tasks extension (2026-07-28 per-request capabilities). */
function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const extensions = capabilities?.extensions as Record<string, unknown> | undefined;
  return Boolean(extensions && Object.hasOwn(extensions, TASKS_EXTENSION));
}

const principalOf = (ctx: ServerContext): Principal => {
  const principal = (ctx.http?.authInfo?.extra as { principal?: Principal } | undefined)?.principal;
  if (!principal) throw new Error('a tasks request reached the MCP handler without an authenticated principal');
  return principal;
};

const missingCapability = () =>
  new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, 'Missing required client capability', {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });

// The same answer for a task that never existed, one that expired, and another caller's.
const notFound = () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');

// Params are checked after the capability: a client that did not declare the extension is told
// so (-32021) whatever it sent, as the extension requires.
const AnyParams = z.object({}).loose();
const TaskIdParams = z.object({ taskId: z.string() }).loose();
const UpdateParams = z.object({ taskId: z.string(), inputResponses: z.record(z.string(), z.unknown()) }).loose();

function paramsOf<T>(schema: z.ZodType<T>, params: unknown, ctx: ServerContext): T {
  if (!declaresTasks(ctx)) throw missingCapability();
  const parsed = schema.safeParse(params);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`);
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${fields.join('; ')}`);
  }
  return parsed.data;
}

/** tasks/get, tasks/update and tasks/cancel on a 2026-07-28 server instance. */
export function registerTasks(server: Server, runner: TaskRunner): void {
  const lookup = async (ctx: ServerContext, taskId: string) => {
    const task = await runner.get(principalOf(ctx), taskId);
    if (!task) throw notFound();
    return task;
  };
  server.setRequestHandler('tasks/get', { params: AnyParams }, async (params, ctx) =>
    lookup(ctx, paramsOf(TaskIdParams, params, ctx).taskId),
  );
  // Quarry's tasks never ask for input: there is no outstanding request an update could answer,
  // and the spec has responses to keys not outstanding ignored.
  server.setRequestHandler('tasks/update', { params: AnyParams }, async (params, ctx) => {
    await lookup(ctx, paramsOf(UpdateParams, params, ctx).taskId);
    return {};
  });
  server.setRequestHandler('tasks/cancel', { params: AnyParams }, async (params, ctx) => {
    const { taskId } = paramsOf(TaskIdParams, params, ctx);
    if (!(await runner.cancel(principalOf(ctx), taskId))) throw notFound();
    return {};
  });
}

export interface TaskCall {
  name: string;
  args: Record<string, unknown> | undefined;
  ctx: ServerContext;
  principal: Principal;
  requestId: string;
  sampling: CallerSampling | undefined;
}

/**
 * Runs a tools/call as a task when that is what the client can take and the call is worth it: a
 * 2026-07-28 client that declared the extension calls a tool that runs a model. The answer is
 * the CreateTaskResult; the call runs in the background exactly as it would have in the
 * foreground, and its CallToolResult becomes the task's result. A call that takes part in a
 * sampling round trip (the client offers its own model, or this is the retry carrying the
 * answer) stays synchronous: that exchange lives on the request itself. Undefined: answer as usual.
 */
export async function startTask(
  runner: TaskRunner | undefined,
  dispatcher: ToolDispatcher,
  call: TaskCall,
): Promise<Record<string, unknown> | undefined> {
  const { name, args, ctx, principal, requestId, sampling } = call;
  if (!runner || dispatcher.longCallOf(name, args)?.kind !== 'model' || !declaresTasks(ctx)) return undefined;
  if (sampling?.available || sampling?.continuation || !mayUse(principal, name)) return undefined;
  const task = await runner.launch({
    owner: { orgId: principal.orgId, tokenId: principal.tokenId, userId: principal.userId },
    tool: name,
    work: async (signal) => {
      const outcome = await dispatcher.call(name, args, {
        principal,
        requestId,
        signal,
        sampling: { available: false },
      });
      // Without sampling on offer a service never asks for it (the dispatcher would answer INTERNAL).
      // The result as the call would have answered on 2026-07-28, discriminator included.
      return { status: 'completed', result: { ...outcome.result, resultType: 'complete' } };
    },
  });
  return { ...task, resultType: 'task' };
}
