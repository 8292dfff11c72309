import { declaresExtension } from '../request-context.js';
import { TASKS_EXTENSION } from '../tasks/tasks-extension.js';
import { longCallOf } from '../tools/catalogue.js';
import type { CallMode, CallModeDeps } from './call-mode.js';

/**
 * A call of a tool that runs a model, from a 2026-07-28 client that declared the tasks extension
 * (ADR 0034): the answer is the CreateTaskResult at once; the call runs in the background exactly
 * as it would have in the foreground, and its CallToolResult becomes the task's result. A call
 * taking part in a sampling round trip is the sampling mode's (listed first): that exchange lives
 * on the request itself.
 */
export function taskMode({ tools, tasks }: CallModeDeps): CallMode {
  return {
    name: 'task',
    appliesTo: (call) =>
      tasks !== undefined &&
      call.era === 'modern' &&
      longCallOf(call.tool, call.args)?.kind === 'model' &&
      declaresExtension(call.capabilities, TASKS_EXTENSION),
    async run({ tool, args, caller }) {
      const { principal, requestId } = caller;
      const task = await tasks!.launch({
        owner: { orgId: principal.orgId, tokenId: principal.tokenId, userId: principal.userId },
        tool: tool.name,
        work: async (signal) => {
          // Without sampling on offer a service never asks for it (the call would answer INTERNAL).
          const outcome = await tools.call(tool.name, args, { principal, requestId, signal }, { available: false });
          // The result as the call would have answered on 2026-07-28, discriminator included.
          return { status: 'completed', result: { ...outcome.result, resultType: 'complete' } };
        },
      });
      return { answer: { ...task, resultType: 'task' } };
    },
  };
}
