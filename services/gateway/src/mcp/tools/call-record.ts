import type { ToolDefinition } from '@quarry/contracts';
import type { ToolCallLog, ToolCallRecord } from '../../tool-call-log.js';
import type { Caller } from '../request-context.js';
import type { ModelUsage } from './reply.js';

/** How a tool call ended, as metrics and the tool-call log count it. */
export type CallOutcome = ToolCallRecord['outcome'];

export interface ToolObserver {
  (tool: string, outcome: CallOutcome, code: string, seconds: number): void;
}

/**
 * Every tool call is observed (metrics) and, except liveness checks, recorded in the tool-call
 * log: `record(...)` at the start of a call returns the function that ends it.
 */
export function createCallRecorder(options: { observe?: ToolObserver; toolCallLog?: ToolCallLog }) {
  return function record(
    name: string,
    tool: ToolDefinition | undefined,
    args: Record<string, unknown> | undefined,
    caller: Caller,
  ) {
    const started = performance.now();
    return (outcome: CallOutcome, code: string, usage?: ModelUsage) => {
      const durationMs = performance.now() - started;
      options.observe?.(name, outcome, code, durationMs / 1000);
      const log = options.toolCallLog;
      if (tool?.liveness || !log) return;
      // Measured only for a record that is written (the arguments are not changed by the call).
      const argumentBytes = args ? Buffer.byteLength(JSON.stringify(args)) : 0;
      const entry: ToolCallRecord = {
        occurredAt: new Date(),
        orgId: caller.principal.orgId,
        userId: caller.principal.userId,
        tokenId: caller.principal.tokenId,
        requestId: caller.requestId,
        tool: name.slice(0, 128),
        durationMs,
        outcome,
        errorCode: code === 'OK' || code === 'INPUT_REQUIRED' ? null : code,
        argumentBytes,
        inputTokens: usage?.inputTokens ?? null,
        outputTokens: usage?.outputTokens ?? null,
      };
      const write = () => log.record(entry);
      // A call made for a principal that turns out revoked never reached its client: no record.
      if (caller.confirmed) void caller.confirmed.then((ok) => ok && write());
      else write();
    };
  };
}
