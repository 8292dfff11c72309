import { type Insertable, type Selectable, sql, type Transaction } from 'kysely';
import {
  type BranchingCondition,
  type Effect,
  type JsonValue,
  parseExpression,
  type PlanSnapshot,
  type PlanStatus,
  type PlanStep,
  type StepStatus,
  type StepType,
} from '../core/index.js';
import type { PlanDatabase } from './schema.js';

export type Trx = Transaction<PlanDatabase>;
export type PlanRow = Selectable<PlanDatabase['plan.research_plans']>;
export type StepRow = Selectable<PlanDatabase['plan.plan_steps']>;

/** A plan as the handlers work on it: its row, its steps' rows, and the snapshot the core decides on. */
export interface LoadedPlan {
  plan: PlanRow;
  snapshot: PlanSnapshot;
  steps: StepRow[];
}

function toStep(row: StepRow): PlanStep {
  return {
    id: row.id,
    order: row.step_order,
    type: row.step_type as StepType,
    status: row.status as StepStatus,
    instructions: row.instructions,
    result: (row.result ?? null) as JsonValue | null,
    confidence: row.confidence,
    executionReport: (row.step_execution_report ?? null) as JsonValue | null,
    formattingNotes: row.formatting_notes,
    failureReason: row.failure_reason,
    startedAt: row.started_at,
    completedAt: row.completed_at,
  };
}

function stepColumns(step: PlanStep) {
  return {
    step_order: step.order,
    step_type: step.type,
    instructions: step.instructions,
    status: step.status,
    result: step.result === null ? null : JSON.stringify(step.result),
    confidence: step.confidence,
    step_execution_report: step.executionReport === null ? null : JSON.stringify(step.executionReport),
    formatting_notes: step.formattingNotes,
    failure_reason: step.failureReason,
    started_at: step.startedAt,
    completed_at: step.completedAt,
  };
}

/**
 * Loads a plan with its steps and conditions. With `lock`, the plan row is locked FOR UPDATE
 * for the rest of the transaction: every change to a plan goes through that lock, so two
 * callers can never both claim the same step or interleave their writes.
 */
export async function loadPlan(trx: Trx, planId: string, lock: boolean): Promise<LoadedPlan | undefined> {
  const query = trx.selectFrom('plan.research_plans').selectAll().where('id', '=', planId);
  const plan = await (lock ? query.forUpdate() : query).executeTakeFirst();
  if (!plan) return undefined;
  const [steps, conditions] = await Promise.all([
    trx.selectFrom('plan.plan_steps').selectAll().where('plan_id', '=', planId).orderBy('step_order').execute(),
    trx
      .selectFrom('plan.branching_conditions')
      .selectAll()
      .where('plan_id', '=', planId)
      .orderBy('evaluation_order')
      .execute(),
  ]);
  const snapshot: PlanSnapshot = {
    status: plan.status as PlanStatus,
    steps: steps.map(toStep),
    conditions: conditions.map((c): BranchingCondition => ({
      id: c.id,
      afterStepId: c.step_id,
      expression: parseExpression(c.condition_expression),
      action: c.if_true_action as BranchingCondition['action'],
      ...(c.target_step_id ? { targetStepId: c.target_step_id } : {}),
    })),
  };
  return { plan, snapshot, steps };
}

/** The plan's id as stored (canonical form), if the plan exists for the caller's org (RLS hides the others). */
export async function storedPlanId(trx: Trx, planId: string): Promise<string | undefined> {
  const row = await trx.selectFrom('plan.research_plans').select('id').where('id', '=', planId).executeTakeFirst();
  return row?.id;
}

/** The step's id as stored, if the step exists and belongs to the plan. */
export async function storedStepId(trx: Trx, planId: string, stepId: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('plan.plan_steps')
    .select('id')
    .where('plan_id', '=', planId)
    .where('id', '=', stepId)
    .executeTakeFirst();
  return row?.id;
}

/** The plan row of a new plan; its steps and conditions follow as the core's effects. */
export async function insertPlan(trx: Trx, row: Insertable<PlanDatabase['plan.research_plans']>): Promise<void> {
  await trx.insertInto('plan.research_plans').values(row).execute();
}

/**
 * Persists a transition's effects in order, inside the caller's transaction (which holds the
 * plan lock and the tenant). The rows are exactly what the pure core decided; nothing here
 * makes a decision of its own.
 */
export async function applyEffects(
  trx: Trx,
  context: { orgId: string; planId: string; after: PlanSnapshot; at: Date },
  effects: readonly Effect[],
): Promise<void> {
  const { orgId, planId, after, at } = context;
  // A reorder rewrites several orders; uniqueness is checked at commit.
  await sql`set constraints plan.plan_steps_plan_order_key deferred`.execute(trx);
  let wrote = false;
  // A condition's skip_to target references its step without cascade, so the conditions the
  // core dropped go before the steps it removed.
  const ordered = [
    ...effects.filter((e) => e.kind === 'delete_condition'),
    ...effects.filter((e) => e.kind !== 'delete_condition'),
  ];
  for (const effect of ordered) {
    switch (effect.kind) {
      case 'set_plan_status':
        await trx.updateTable('plan.research_plans').set({ status: effect.status }).where('id', '=', planId).execute();
        wrote = true;
        break;
      case 'delete_step':
        await trx.deleteFrom('plan.plan_steps').where('id', '=', effect.stepId).execute();
        wrote = true;
        break;
      case 'delete_condition':
        await trx.deleteFrom('plan.branching_conditions').where('id', '=', effect.conditionId).execute();
        wrote = true;
        break;
      case 'update_step':
        await trx
          .updateTable('plan.plan_steps')
          .set({ ...stepColumns(effect.step), updated_at: at })
          .where('id', '=', effect.step.id)
          .execute();
        wrote = true;
        break;
      case 'insert_step':
        await trx
          .insertInto('plan.plan_steps')
          .values({ id: effect.step.id, org_id: orgId, plan_id: planId, ...stepColumns(effect.step), updated_at: at })
          .execute();
        wrote = true;
        break;
      case 'insert_condition':
        await trx
          .insertInto('plan.branching_conditions')
          .values({
            id: effect.condition.id,
            org_id: orgId,
            plan_id: planId,
            step_id: effect.condition.afterStepId,
            evaluation_order: after.conditions.findIndex((c) => c.id === effect.condition.id),
            condition_expression: effect.condition.expression.source,
            if_true_action: effect.condition.action,
            target_step_id: effect.condition.targetStepId ?? null,
          })
          .execute();
        wrote = true;
        break;
      case 'append_audit':
        await appendAudit(
          trx,
          { orgId, planId, at },
          effect.event.type,
          effect.event.stepId,
          effect.event.sessionId,
          effect.event.payload,
        );
        break;
      case 'notify':
        // The table triggers NOTIFY quarry_plan_changed; it is delivered at commit.
        break;
    }
  }
  if (wrote) await trx.updateTable('plan.research_plans').set({ updated_at: at }).where('id', '=', planId).execute();
}

async function appendAudit(
  trx: Trx,
  context: { orgId: string; planId: string; at: Date },
  type: string,
  stepId: string | null,
  sessionId: string | null,
  details: unknown,
): Promise<void> {
  await trx
    .insertInto('plan.plan_audit_log')
    .values({
      org_id: context.orgId,
      plan_id: context.planId,
      step_id: stepId,
      session_id: sessionId,
      event_type: type,
      details: JSON.stringify(details ?? {}),
      occurred_at: context.at,
    })
    .execute();
}
