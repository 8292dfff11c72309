import { afterAll, beforeAll, expect } from '@jest/globals';
import { type AnyDb, sql } from '@quarry/db';
import type { QuarryError } from '@quarry/grpc';
import { type Method, type Outcome, type PlanCaller, type Request, type Response, StepType } from './plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from './plan-engine.js';
import { type AuditRow, auditRows, lastAuditId, planSnapshot, stepIdsOf } from './plan-rows.js';

// What the audit-log tests share: a call with the audit rows it appended, the rows as an auditor
// reads them, proof that rows were written by the transaction of the change, and proof that a
// refused call left no trace at all.

type Table = 'research_plans' | 'research_feedback' | 'user_reviews' | 'plan_steps';

/** The rows as an auditor reads them. */
export const events = (rows: readonly AuditRow[]) =>
  rows.map((r) => ({
    type: r.eventType,
    planId: r.planId,
    stepId: r.stepId,
    sessionId: r.sessionId,
    details: r.details,
  }));

interface AuditTools {
  /** Runs one call and returns its outcome with every audit row it appended (to any plan). */
  audited<M extends Method>(method: M, request: Request<M>): Promise<{ outcome: Outcome<M>; rows: AuditRow[] }>;
  /** A call that must succeed, with the audit rows it appended. */
  auditedOk<M extends Method>(method: M, request: Request<M>): Promise<{ answer: Response<M>; rows: AuditRow[] }>;
  /**
   * The rows were written by one transaction, the one that wrote `row` (PostgreSQL stamps every
   * row version with its writer's transaction id, `xmin`), at the same instant as that change.
   */
  expectSameTransaction(rows: readonly AuditRow[], table: Table, id: string): Promise<void>;
  /** A refused call: an error (with `code`, when given), and not one row of the plan schema changed. */
  expectRefusedWithoutTrace<M extends Method>(method: M, request: Request<M>, code?: string): Promise<QuarryError>;
  /** A new plan of `stepCount` analyze steps, with its step ids in order. */
  newPlan(
    stepCount: number,
    extra?: Partial<Request<'createResearchPlan'>>,
  ): Promise<{ planId: string; steps: string[] }>;
}

function auditTools(admin: AnyDb, api: PlanCaller): AuditTools {
  async function audited<M extends Method>(
    method: M,
    request: Request<M>,
  ): Promise<{ outcome: Outcome<M>; rows: AuditRow[] }> {
    const cursor = await lastAuditId(admin);
    const outcome = await api.attempt(method, request);
    return { outcome, rows: await auditRows(admin, { afterId: cursor }) };
  }

  async function auditedOk<M extends Method>(method: M, request: Request<M>) {
    const { outcome, rows } = await audited(method, request);
    if (!outcome.ok) throw outcome.error;
    return { answer: outcome.value, rows };
  }

  async function xminOf(table: Table, id: string): Promise<{ xmin: string; at: Date | null }> {
    const at =
      table === 'research_feedback'
        ? 'created_at'
        : table === 'user_reviews'
          ? 'coalesce(decided_at, requested_at)'
          : 'updated_at';
    const { rows } = await sql<{ xmin: string; at: Date | null }>`
      select xmin::text as xmin, ${sql.raw(at)} as at from ${sql.table(`plan.${table}`)} where id = ${id}::uuid`.execute(
      admin,
    );
    return rows[0]!;
  }

  async function expectSameTransaction(rows: readonly AuditRow[], table: Table, id: string): Promise<void> {
    expect(rows.length).toBeGreaterThan(0);
    const changed = await xminOf(table, id);
    expect(rows.map((r) => r.xmin)).toEqual(rows.map(() => changed.xmin));
    expect(rows.map((r) => r.occurredAt.getTime())).toEqual(rows.map(() => changed.at!.getTime()));
  }

  async function expectRefusedWithoutTrace<M extends Method>(
    method: M,
    request: Request<M>,
    code?: string,
  ): Promise<QuarryError> {
    const before = await planSnapshot(admin);
    const error = await api.refusal(method, request);
    if (code !== undefined) expect(error.code).toBe(code);
    expect(await planSnapshot(admin)).toEqual(before);
    return error;
  }

  async function newPlan(
    stepCount: number,
    extra: Partial<Request<'createResearchPlan'>> = {},
  ): Promise<{ planId: string; steps: string[] }> {
    const { planId } = await api.call('createResearchPlan', {
      name: 'Audited plan',
      researchQuestion: 'Is every change on the record?',
      steps: Array.from({ length: stepCount }, (_, i) => ({
        stepType: StepType.STEP_TYPE_ANALYZE,
        instructions: `Step ${i + 1}`,
      })),
      ...extra,
    });
    return { planId, steps: await stepIdsOf(admin, planId) };
  }

  return { audited, auditedOk, expectSameTransaction, expectRefusedWithoutTrace, newPlan };
}

export let engine: TestPlanEngine;
export let api: PlanCaller;
export let tools: AuditTools;

/** A plan engine, a member of a new org and its audit tools for the tests of the file (`engine`, `api`, `tools`: live bindings). */
export function useAuditedPlanEngine(): void {
  beforeAll(async () => {
    engine = await startTestPlanEngine();
    api = engine.newOrg();
    tools = auditTools(engine.database.admin, api);
  });
  afterAll(async () => {
    await engine?.close();
  });
}
