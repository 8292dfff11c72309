import { describe, expect, it } from '@jest/globals';
import { toolCatalogue, type ToolDefinition } from '@quarry/contracts';
import { QuarryError } from '@quarry/grpc';
import { createTools, type ToolBackend } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { ADA } from './stub-deps.js';

// The deadline the dispatcher gives a tool's rpc: the configured one, or the model deadline for
// tools that run a model, plus the seconds a long poll asks the service to wait. Which field is
// the long poll, and its cap, come from the catalogue (ToolRpc.longPoll, from the proto option):
// nothing here knows get_plan_status. The backend is a stub that records what it was given.

const DEADLINE_MS = 10_000;
const MODEL_DEADLINE_MS = 120_000;
const PLAN_ID = '00000000-0000-4000-8000-000000000001';
const status = toolCatalogue.find((t) => t.name === 'get_plan_status')!;
const extract = toolCatalogue.find((t) => t.name === 'extract_data')!;

function deadlinesOf(...catalogue: ToolDefinition[]) {
  const deadlines: number[] = [];
  const backend: ToolBackend = {
    async unary(_path, _request, call) {
      deadlines.push(call.deadlineMs);
      throw new QuarryError('PLAN_NOT_FOUND', 5, 'No research plan with that id.');
    },
  };
  const tools = createTools({
    catalogue,
    backends: Object.fromEntries(catalogue.map((tool) => [tool.rpc.service, backend])),
    logger: createLogger({ service: 'test', level: 'silent' }),
    deadlineMs: DEADLINE_MS,
    modelDeadlineMs: MODEL_DEADLINE_MS,
  });
  return {
    deadlines,
    call: async (name: string, args: Record<string, unknown>) => {
      const outcome = await tools.call(name, args, { principal: ADA, requestId: 'deadline-test' });
      return outcome.result?.structuredContent;
    },
  };
}

describe('the deadline of a tool call', () => {
  it('grows by the seconds a long poll asks to wait, and only then', async () => {
    const { deadlines, call } = deadlinesOf(status);
    await call('get_plan_status', { planId: PLAN_ID });
    await call('get_plan_status', { planId: PLAN_ID, waitSeconds: 0 });
    await call('get_plan_status', { planId: PLAN_ID, waitSeconds: 30 });
    await call('get_plan_status', { planId: PLAN_ID, waitSeconds: 60 });
    expect(deadlines).toEqual([DEADLINE_MS, DEADLINE_MS, DEADLINE_MS + 30_000, DEADLINE_MS + 60_000]);
  });

  it('never asks the service to wait past the cap: more is an argument error, and no rpc', async () => {
    const { deadlines, call } = deadlinesOf(status);
    expect(await call('get_plan_status', { planId: PLAN_ID, waitSeconds: 61 })).toMatchObject({
      error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/waitSeconds: must be <= 60/) },
    });
    expect(await call('get_plan_status', { planId: PLAN_ID, waitSeconds: -1 })).toMatchObject({
      error: { code: 'INVALID_ARGUMENT' },
    });
    expect(deadlines).toEqual([]);
  });

  it('reads the long-poll field and its cap from the catalogue', async () => {
    const capped: ToolDefinition = {
      ...status,
      name: 'capped_status',
      rpc: { ...status.rpc, longPoll: { field: 'waitSeconds', maxSeconds: 5 } },
    };
    const { longPoll: _none, ...rpc } = status.rpc;
    const plain: ToolDefinition = { ...status, name: 'plain_status', rpc };
    const { deadlines, call } = deadlinesOf(capped, plain);
    await call('capped_status', { planId: PLAN_ID, waitSeconds: 30 });
    await call('plain_status', { planId: PLAN_ID, waitSeconds: 30 });
    expect(deadlines).toEqual([DEADLINE_MS + 5_000, DEADLINE_MS]);
  });

  it('is the model deadline for a tool that runs a model', async () => {
    const { deadlines, call } = deadlinesOf(extract);
    await call('extract_data', { sourceText: 'Ada Lovelace, 1815.', extractionSchema: { type: 'object' } });
    expect(deadlines).toEqual([MODEL_DEADLINE_MS]);
  });
});
