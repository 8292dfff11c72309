import type autocannon from 'autocannon';
import { type McpCaller, toolCallRequest } from './mcp.js';

// The plan-tools workload the bench drives through MCP: plans created, and agents working
// through them a get_next_step + submit_step_result pair at a time.

/** What a step result looks like to the plan engine: a small JSON object with a summary. */
const STEP_RESULT = { summary: 'Found three peer-reviewed sources that answer the question.', sources: { count: 3 } };

function newPlan(steps: number) {
  return {
    name: 'Benchmark plan',
    researchQuestion: 'How fast does Quarry hand out research steps?',
    steps: Array.from({ length: steps }, (_, i) => ({
      stepType: i % 2 ? 'analyze' : 'search',
      instructions: `Step ${i + 1}: do the work and report sources.`,
    })),
  };
}

/** Creates `count` plans through MCP, a few at a time; returns their ids in creation order. */
export async function createPlans(caller: McpCaller, count: number, steps: number): Promise<string[]> {
  const ids: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++)
      ids[i] = (await caller.call('create_research_plan', newPlan(steps))).planId as string;
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return ids;
}

/** One get_next_step + submit_step_result pair per call, walking through `plans` step by step. */
export function sequentialPairs(caller: McpCaller, plans: readonly string[], stepsPerPlan: number) {
  let pairs = 0;
  return async () => {
    const planId = plans[Math.floor(pairs++ / stepsPerPlan)];
    if (!planId) throw new Error('sequential pairs ran out of plans');
    const next = await caller.call('get_next_step', { planId });
    if (next.status !== 'next_step') throw new Error(`get_next_step answered ${next.status}`);
    await caller.call('submit_step_result', { planId, stepId: next.step.stepId, result: STEP_RESULT, confidence: 0.9 });
  };
}

export const succeeded = (body: string) => body.includes('"result"') && !body.includes('"isError":true');

/**
 * Each autocannon connection is one agent working through plans from a shared pool: get_next_step,
 * then submit_step_result for the step it was given, until its plan is done, then the next plan.
 * Calls `exhausted` when the pool runs dry (the run is stopped then, so the rate stays honest).
 */
export function pairClients(
  token: string,
  pool: string[],
  stepsPerPlan: number,
  counters: { pairs: number },
  exhausted: () => void,
) {
  return (client: autocannon.Client) => {
    let planId = pool.pop();
    let left = stepsPerPlan;
    let stepId: string | undefined;
    const nextPlan = () => {
      left = stepsPerPlan;
      const taken = pool.pop();
      if (taken) planId = taken;
      else exhausted();
    };
    if (!planId) exhausted();
    client.setRequests([
      {
        setupRequest: (request) => ({ ...request, ...toolCallRequest(token, 'get_next_step', { planId }) }),
        onResponse: (status, body) => {
          const match = status === 200 ? /"stepId":"([0-9a-f-]{36})"/.exec(body) : null;
          stepId = match?.[1];
          if (!stepId) nextPlan();
        },
      },
      {
        // No step to submit: back to get_next_step (autocannon restarts the chain on a falsy request).
        setupRequest: (request) =>
          stepId
            ? {
                ...request,
                ...toolCallRequest(token, 'submit_step_result', {
                  planId,
                  stepId,
                  result: STEP_RESULT,
                  confidence: 0.9,
                }),
              }
            : (undefined as never),
        onResponse: (status, body) => {
          if (status === 200 && succeeded(body)) counters.pairs++;
          if (--left === 0) nextPlan();
        },
      },
    ]);
  };
}

/**
 * The plan tools' benchmark: get_plan_status and get_next_step+submit_step_result through
 * MCP → gateway → gRPC → PostgreSQL (Quarry), against the monolith baseline (the same gateway
 * calling the same handlers in-process) over the same MCP HTTP transport, in the same run.
 * Ratios are Quarry ÷ monolith: the price of the microservice hop. Reads are also measured on the
 * same one-process Quarry over loopback gRPC (`quarry_grpc`, QUARRY_SERVICE_TRANSPORT=grpc), the
 * A/B of the in-process transport in the same run (ADR 0053). Read throughput is also
 * compared with two echo servers on the same transport (baselines.ts): p2_ratio against the
 * SDK's naive server-per-request pattern, p2_ratio_handrolled against a bare fastify route.
 */
