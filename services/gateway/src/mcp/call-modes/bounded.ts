import type { ToolDefinition } from '@quarry/contracts';
import { longCallOf } from '../tools/catalogue.js';
import type { CallBudget } from '../tools/call.js';
import type { CallMode, CallModeDeps } from './call-mode.js';
import { withProgress } from './progress.js';

/**
 * What a call may take of the bound: all but the way back (the gateway, the network), a quarter
 * of the bound and at most 2 s. The rpc's deadline is the bound itself.
 */
export function budgetWithin(boundMs: number): CallBudget {
  return { answerWithinMs: boundMs - Math.min(2_000, Math.floor(boundMs / 4)), deadlineMs: boundMs };
}

/** The arguments with a long poll's wait held to `maxSeconds` (other arguments as they are). */
export function capWait(tool: ToolDefinition, args: Record<string, unknown>, maxSeconds: number) {
  const field = tool.rpc.longPoll?.field;
  const wait = field === undefined ? undefined : args[field];
  return typeof wait === 'number' && wait > maxSeconds ? { ...args, [field!]: maxSeconds } : args;
}

/**
 * A long call (a model at work, a long poll) from a 2025-era client (ADR 0044): such clients time
 * a call out after about a minute and have no tasks extension, so no call holds them longer than
 * the bound (QUARRY_MCP_CALL_BOUND). A long poll's wait is held below it; a tool whose service
 * takes a CallBudget is asked to answer within it — work that takes longer answers with a durable
 * job to poll, which the service finishes on its own — and every rpc's deadline is the bound.
 * Progress is reported as for any long call when the client sent a token.
 */
export function boundedMode({ tools, callBoundMs, progressIntervalMs }: CallModeDeps): CallMode {
  return {
    name: 'bounded',
    appliesTo: (call) =>
      callBoundMs !== undefined && call.era === 'legacy' && longCallOf(call.tool, call.args) !== undefined,
    async run({ tool, args, caller, ctx }) {
      const budget = budgetWithin(callBoundMs!);
      const held = capWait(tool, args, Math.floor(budget.answerWithinMs / 1000));
      const outcome = await withProgress(ctx, longCallOf(tool, held), progressIntervalMs, () =>
        tools.call(tool.name, held, caller, undefined, budget),
      );
      // Without sampling on offer a service never gets to ask for it (the call answers INTERNAL).
      return { result: outcome.result! };
    },
  };
}
