import { afterAll, beforeAll } from '@jest/globals';
import { sql } from '@quarry/db';
import { callerOf, NextStepStatus, type PlanCaller, StepType } from './plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from './plan-engine.js';

// Shared by the concurrency test files (rpc/concurrent-*.test.ts): many agents of one org calling
// one plan engine at the same moment, through the real gRPC server and PostgreSQL (with more
// concurrent calls than the plan engine has connections), and the rows they leave.

export const AGENTS = 50;
/** Calls queue for the plan lock and the pool; give them time on a loaded machine. */
export const SLOW = { deadlineMs: 30_000 };
export const NEXT_STEP = NextStepStatus.NEXT_STEP_STATUS_NEXT_STEP;

let engine: TestPlanEngine;
export let owner: PlanCaller;
/** One caller per agent, all members of the owner's org; every call carries an identity of its own. */
export let agents: PlanCaller[];
export const db = () => engine.database.admin;

/** The plan engine, the owner and the agents for the tests of the file (live bindings). */
export function useAgents(): void {
  beforeAll(async () => {
    engine = await startTestPlanEngine();
    owner = engine.newOrg();
    agents = Array.from({ length: AGENTS }, () => callerOf(engine.client, owner.orgId));
  });
  afterAll(async () => {
    await engine?.close();
  });
}

export async function createPlan(steps: number, name: string): Promise<{ planId: string; stepIds: string[] }> {
  const { planId } = await owner.call('createResearchPlan', {
    name,
    researchQuestion: 'How do many agents share one plan?',
    steps: Array.from({ length: steps }, (_, i) => ({
      stepType: StepType.STEP_TYPE_SEARCH,
      instructions: `Step ${i + 1}`,
    })),
  });
  const { rows } = await sql<{
    id: string;
  }>`select id from plan.plan_steps where plan_id = ${planId}::uuid order by step_order`.execute(db());
  return { planId, stepIds: rows.map((r) => r.id) };
}

export async function stepRows(planId: string) {
  const { rows } = await sql<{
    id: string;
    step_order: number;
    status: string;
    started_at: Date | null;
    result: Record<string, unknown> | null;
  }>`
    select id, step_order, status, started_at, result from plan.plan_steps where plan_id = ${planId}::uuid order by step_order`.execute(
    db(),
  );
  return rows;
}

export async function planStatus(planId: string): Promise<string> {
  const { rows } = await sql<{
    status: string;
  }>`select status from plan.research_plans where id = ${planId}::uuid`.execute(db());
  return rows[0]!.status;
}
