import { ProtocolError, ProtocolErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { z } from '@quarry/config';
import { callerOf, clientCapabilitiesOf, declaresExtension } from '../request-context.js';
import type { TaskRunner } from './task-runner.js';

/** The extension's identifier, in client and server capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether this request's client declared the tasks extension (2026-07-28 per-request capabilities). */
const declaresTasks = (ctx: ServerContext) => declaresExtension(clientCapabilitiesOf(ctx), TASKS_EXTENSION);
const principalOf = (ctx: ServerContext) => callerOf(ctx).principal;

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
