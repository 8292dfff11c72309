import { planV1 } from '@quarry/contracts';
import { withTenant } from '@quarry/db';
import { type CallContext, unary } from '@quarry/grpc';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import {
  createPlan,
  derivePlanStatus,
  isPlanStalled,
  type JsonValue,
  type PlanEvent,
  type PlanSnapshot,
  type PlanStatus,
  type PlanStep,
  progress,
  transition,
} from './core/index.js';
import { noPlanArtifacts, type PlanArtifacts } from './artifacts.js';
import {
  auditEventTypes,
  branchActions,
  feedbackTypes,
  mediaTypes,
  modifyActions,
  nextStepStatuses,
  planStatuses,
  reviewDecisions,
  skillStatuses,
  stepStatuses,
  stepTypes,
} from './enums.js';
import { planErrors, toServiceError } from './errors.js';
import type { PlanChangeListener } from './plan-changes.js';
import { createPlanStatusCache } from './plan-status-cache.js';
import { applyEffects, loadPlan, type PlanRow, type Trx } from './store/plans.js';
import type { PlanDatabase } from './store/schema.js';

export interface PlanServiceDeps {
  db: Kysely<PlanDatabase>;
  changes: PlanChangeListener;
  logger: Logger;
  stallThresholdMs: number;
  /** The plan's artifacts for the context tools; none when omitted (no artifact store). */
  artifacts?: PlanArtifacts;
  now?: () => Date;
  newId?: () => string;
}

const TERMINAL: readonly PlanStatus[] = ['completed', 'failed'];

/** An event before the shell stamps its time (which happens under the plan lock). */
type Untimed<E> = E extends unknown ? Omit<E, 'at'> : never;
const SUMMARY_CHARS = 600;
const DEFAULT_PAGE = 20;

/** A bounded, readable digest of a step result: its `summary` if it has one, else its JSON. */
export function summarizeResult(result: JsonValue | null): string {
  if (result === null) return '';
  const summary =
    typeof result === 'object' && !Array.isArray(result) && typeof result.summary === 'string'
      ? result.summary
      : JSON.stringify(result);
  if (summary.length <= SUMMARY_CHARS) return summary;
  const cut = summary.slice(0, SUMMARY_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${space > SUMMARY_CHARS * 0.8 ? cut.slice(0, space) : cut}…`;
}

function overview(step: PlanStep): planV1.StepOverview {
  return {
    stepId: step.id,
    stepOrder: step.order,
    stepType: stepTypes.valueOf(step.type),
    status: stepStatuses.valueOf(step.status),
    instructions: step.instructions,
    confidence: step.confidence ?? undefined,
    startedAt: step.startedAt ?? undefined,
    completedAt: step.completedAt ?? undefined,
  };
}

function asObject(value: unknown): { [key: string]: unknown } | undefined {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as { [key: string]: unknown })
    : undefined;
}

function encodeCursor(row: { updated_at: Date; id: string }): string {
  return Buffer.from(JSON.stringify({ u: row.updated_at.toISOString(), i: row.id })).toString('base64url');
}

function decodeCursor(cursor: string): { u: string; i: string } {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { u?: unknown; i?: unknown };
    if (
      typeof parsed.u === 'string' &&
      !Number.isNaN(Date.parse(parsed.u)) &&
      typeof parsed.i === 'string' &&
      /^[0-9a-f-]{36}$/.test(parsed.i)
    ) {
      return { u: parsed.u, i: parsed.i };
    }
  } catch {
    // fall through
  }
  throw planErrors.INVALID_CURSOR();
}

const MODIFY_FIELDS = {
  add_steps: { required: ['steps'], optional: [] },
  remove_step: { required: ['stepId'], optional: [] },
  reorder_steps: { required: ['stepOrder'], optional: [] },
  update_step_instructions: { required: ['stepId', 'updatedInstructions'], optional: [] },
  fail_step: { required: ['stepId'], optional: ['reason'] },
} as const;

/**
 * The PlanService rpcs: each runs in one transaction under the caller's tenant (RLS), and every
 * change to a plan goes through the plan row lock and the pure `transition`, whose effects are
 * persisted together with their audit rows.
 */
export function createPlanService(deps: PlanServiceDeps): planV1.PlanServiceServer {
  const now = deps.now ?? (() => new Date());
  const newId = deps.newId ?? (() => crypto.randomUUID());
  const artifacts = deps.artifacts ?? noPlanArtifacts;

  async function tenant<T>(ctx: CallContext, fn: (trx: Trx) => Promise<T>): Promise<T> {
    try {
      return await withTenant(deps.db, { orgId: ctx.identity.orgId }, (trx) => fn(trx as Trx));
    } catch (error) {
      throw toServiceError(error);
    }
  }

  async function mustLoad(trx: Trx, planId: string, lock: boolean) {
    const loaded = await loadPlan(trx, planId, lock);
    if (!loaded) throw planErrors.PLAN_NOT_FOUND({ planId });
    return loaded;
  }

  /** Load with the lock, run the state machine, persist its effects: the one way plans change. */
  async function mutate(trx: Trx, ctx: CallContext, planId: string, event: Untimed<PlanEvent>) {
    const loaded = await mustLoad(trx, planId, true);
    // The clock is read once the plan lock is held, so recorded times follow commit order.
    const at = now();
    const result = transition(loaded.snapshot, { ...event, at } as PlanEvent);
    await applyEffects(trx, { orgId: ctx.identity.orgId, planId, after: result.state, at }, result.effects);
    return { ...loaded, result, at };
  }

  // get_plan_status is the hot read (clients poll it): unchanged plans are answered from memory.
  const statusCache = createPlanStatusCache<Awaited<ReturnType<typeof mustLoad>>>(deps.changes);

  function reportedStatus(plan: PlanRow, snapshot: PlanSnapshot, at: Date): { status: PlanStatus; stalled: boolean } {
    const stored = plan.status as PlanStatus;
    const stalled = !TERMINAL.includes(stored) && isPlanStalled(snapshot.steps, at, deps.stallThresholdMs);
    return { status: stored === 'executing' && stalled ? 'stalled' : stored, stalled };
  }

  async function outputPreferences(trx: Trx) {
    const row = await trx.selectFrom('plan.output_preferences').selectAll().executeTakeFirst();
    return {
      outputMediaType: mediaTypes.valueOf((row?.output_media_type ?? 'conversation') as 'conversation'),
      outputFormattingInstructions: row?.output_formatting_instructions ?? undefined,
    };
  }

  function statusOf(plan: PlanRow, snapshot: PlanSnapshot): planV1.GetPlanStatusResponse {
    const { steps } = snapshot;
    const { status: reported, stalled } = reportedStatus(plan, snapshot, now());
    const current = steps.find((s) => s.status === 'in_progress' || s.status === 'awaiting_input');
    return {
      planId: plan.id,
      name: plan.name,
      status: planStatuses.valueOf(reported),
      derivedStatus: planStatuses.valueOf(derivePlanStatus(steps)),
      stalled,
      progress: progress(steps),
      totalSteps: steps.length,
      currentStep: current ? overview(current) : undefined,
      completedSteps: steps.filter((s) => s.status === 'completed' || s.status === 'skipped').map(overview),
      pendingSteps: steps.filter((s) => s.status === 'pending').map(overview),
    };
  }

  return {
    createResearchPlan: unary(async (req: planV1.CreateResearchPlanRequest, ctx) => {
      if (req.steps.length === 0)
        throw planErrors.INVALID_ARGUMENT({ field: 'steps', rule: 'must contain at least one step' });
      const at = now();
      const planId = newId();
      const result = (() => {
        try {
          return createPlan({
            steps: req.steps.map((s) => ({
              id: newId(),
              type: stepTypes.required(s.stepType, 'stepType'),
              instructions: s.instructions,
            })),
            branchingConditions: req.branchingConditions.map((c) => ({
              id: newId(),
              afterStepOrder: c.afterStepOrder,
              conditionExpression: c.conditionExpression,
              ifTrueAction: branchActions.required(c.ifTrueAction, 'ifTrueAction'),
              actionParams: c.actionParams ? { targetStepOrder: c.actionParams.targetStepOrder } : null,
            })),
            rationale: req.planDesignRationale ?? null,
            sessionId: req.sessionId ?? null,
          });
        } catch (error) {
          throw toServiceError(error);
        }
      })();
      await tenant(ctx, async (trx) => {
        const skill = req.sessionId
          ? await trx
              .selectFrom('plan.skill_executions')
              .select('id')
              .where('session_id', '=', req.sessionId)
              .where('status', 'in', ['started', 'executing'])
              .orderBy('started_at', 'desc')
              .limit(1)
              .executeTakeFirst()
          : undefined;
        await trx
          .insertInto('plan.research_plans')
          .values({
            id: planId,
            org_id: ctx.identity.orgId,
            name: req.name,
            research_question: req.researchQuestion,
            status: result.state.status,
            plan_design_rationale: req.planDesignRationale ?? null,
            plan_formatting_notes: req.outputFormattingNotes ?? null,
            session_id: req.sessionId ?? null,
            skill_execution_id: skill?.id ?? null,
            updated_at: at,
          })
          .execute();
        await applyEffects(trx, { orgId: ctx.identity.orgId, planId, after: result.state, at }, result.effects);
        if (skill) {
          await trx
            .updateTable('plan.skill_executions')
            .set({ plan_id: planId, updated_at: at })
            .where('id', '=', skill.id)
            .where('plan_id', 'is', null)
            .execute();
        }
      });
      const first = result.state.steps[0]!;
      return {
        planId,
        name: req.name,
        researchQuestion: req.researchQuestion,
        stepCount: result.state.steps.length,
        firstStep: { stepId: first.id, stepType: stepTypes.valueOf(first.type), instructions: first.instructions },
      };
    }),

    getPlanStatus: unary(async (req: planV1.GetPlanStatusRequest, ctx) => {
      const read = async () => {
        const { plan, snapshot } = await statusCache.read(ctx.identity.orgId, req.planId, () =>
          tenant(ctx, (trx) => mustLoad(trx, req.planId, false)),
        );
        return { plan, response: statusOf(plan, snapshot) };
      };
      const waitMs = Math.min(Math.max(req.waitSeconds ?? 0, 0), 60) * 1000;
      if (waitMs === 0) return (await read()).response;
      // Watch first, then read: a change between the two still wakes us.
      const watch = deps.changes.watch(ctx.identity.orgId, req.planId, waitMs, ctx.signal);
      try {
        const first = await read();
        if (TERMINAL.includes(first.plan.status as PlanStatus)) return first.response;
        return (await watch.changed) ? (await read()).response : first.response;
      } finally {
        watch.cancel();
      }
    }),

    modifyPlan: unary(async (req: planV1.ModifyPlanRequest, ctx) => {
      const action = modifyActions.required(req.action, 'action');
      const present: Record<string, boolean> = {
        steps: req.steps.length > 0,
        stepId: req.stepId !== undefined,
        stepOrder: req.stepOrder.length > 0,
        updatedInstructions: req.updatedInstructions !== undefined,
        reason: req.reason !== undefined,
      };
      const { required, optional } = MODIFY_FIELDS[action];
      for (const field of required) {
        if (!present[field]) throw planErrors.INVALID_ARGUMENT({ field, rule: `is required for action ${action}` });
      }
      for (const [field, isPresent] of Object.entries(present)) {
        if (
          isPresent &&
          !(required as readonly string[]).includes(field) &&
          !(optional as readonly string[]).includes(field)
        ) {
          throw planErrors.INVALID_ARGUMENT({ field, rule: `is not used by action ${action}` });
        }
      }
      const base = { sessionId: req.sessionId ?? null, rationale: req.modificationRationale ?? null };
      const event: Untimed<PlanEvent> =
        action === 'add_steps'
          ? {
              ...base,
              type: 'add_steps',
              steps: req.steps.map((s) => ({
                id: newId(),
                type: stepTypes.required(s.stepType, 'stepType'),
                instructions: s.instructions,
                insertAfterOrder: s.insertAfterOrder ?? null,
              })),
            }
          : action === 'remove_step'
            ? { ...base, type: 'remove_step', stepId: req.stepId! }
            : action === 'reorder_steps'
              ? { ...base, type: 'reorder_steps', stepIds: req.stepOrder }
              : action === 'update_step_instructions'
                ? {
                    ...base,
                    type: 'update_step_instructions',
                    stepId: req.stepId!,
                    instructions: req.updatedInstructions!,
                  }
                : { ...base, type: 'fail_step', stepId: req.stepId!, reason: req.reason ?? null };
      const { result } = await tenant(ctx, (trx) => mutate(trx, ctx, req.planId, event));
      return {
        planId: req.planId,
        action: req.action,
        planStatus: planStatuses.valueOf(result.state.status),
        steps: result.state.steps.map(overview),
      };
    }),

    listActivePlans: unary(async (req: planV1.ListActivePlansRequest, ctx) => {
      const limit = req.limit ?? DEFAULT_PAGE;
      const after = req.cursor ? decodeCursor(req.cursor) : undefined;
      const at = now();
      return tenant(ctx, async (trx) => {
        const active = trx.selectFrom('plan.research_plans as p').where('p.status', 'not in', ['completed', 'failed']);
        const [{ count }] = (await active.select((eb) => eb.fn.countAll<string>().as('count')).execute()) as [
          { count: string },
        ];
        let page = active
          .selectAll('p')
          .select((eb) => [
            eb
              .selectFrom('plan.plan_steps as s')
              .whereRef('s.plan_id', '=', 'p.id')
              .select((e) => e.fn.countAll<string>().as('n'))
              .as('total_steps'),
            eb
              .selectFrom('plan.plan_steps as s')
              .whereRef('s.plan_id', '=', 'p.id')
              .where('s.status', 'in', ['completed', 'skipped'])
              .select((e) => e.fn.countAll<string>().as('n'))
              .as('done_steps'),
            eb
              .selectFrom('plan.plan_steps as s')
              .whereRef('s.plan_id', '=', 'p.id')
              .where('s.status', '=', 'in_progress')
              .select((e) => e.fn.min('s.started_at').as('m'))
              .as('oldest_started'),
          ])
          .orderBy('p.updated_at', 'desc')
          .orderBy('p.id', 'desc')
          .limit(limit + 1);
        if (after) page = page.where(sql<boolean>`(p.updated_at, p.id) < (${after.u}::timestamptz, ${after.i}::uuid)`);
        const rows = await page.execute();
        const more = rows.length > limit;
        const shown = rows.slice(0, limit);
        return {
          activePlans: Number(count),
          plans: shown.map((row) => {
            const total = Number(row.total_steps ?? 0);
            const done = Number(row.done_steps ?? 0);
            const oldest = row.oldest_started as Date | string | null;
            const stalled = oldest !== null && at.getTime() - new Date(oldest).getTime() > deps.stallThresholdMs;
            const stored = row.status as PlanStatus;
            return {
              planId: row.id,
              name: row.name,
              researchQuestion: row.research_question,
              status: planStatuses.valueOf(stored === 'executing' && stalled ? 'stalled' : stored),
              progress: total === 0 ? 0 : (done / total) * 100,
              totalSteps: total,
              completedSteps: done,
              updatedAt: row.updated_at,
            };
          }),
          nextCursor: more ? encodeCursor(shown[shown.length - 1]!) : undefined,
        };
      });
    }),

    getNextStep: unary(async (req: planV1.GetNextStepRequest, ctx) => {
      return tenant(ctx, async (trx): Promise<planV1.GetNextStepResponse> => {
        const { plan, result } = await mutate(trx, ctx, req.planId, {
          type: 'claim_next_step',
          sessionId: req.sessionId ?? null,
        });
        const outcome = result.outcome!;
        const response: planV1.GetNextStepResponse = {
          status: nextStepStatuses.valueOf(outcome.status),
          outputMediaType: planV1.OutputMediaType.OUTPUT_MEDIA_TYPE_UNSPECIFIED,
          stepFormattingNotes: [],
        };
        if (outcome.status === 'next_step') {
          const step = result.state.steps.find((s) => s.id === outcome.stepId)!;
          response.step = {
            stepId: step.id,
            stepOrder: step.order,
            stepType: stepTypes.valueOf(step.type),
            instructions: step.instructions,
          };
        } else if (outcome.status === 'plan_complete') {
          Object.assign(response, await outputPreferences(trx));
          response.planFormattingNotes = plan.plan_formatting_notes ?? undefined;
          response.stepFormattingNotes = result.state.steps
            .filter((s) => s.formattingNotes)
            .map((s) => ({ stepId: s.id, stepOrder: s.order, notes: s.formattingNotes! }));
        }
        return response;
      });
    }),

    submitStepResult: unary(async (req: planV1.SubmitStepResultRequest, ctx) => {
      if (!req.result) throw planErrors.INVALID_ARGUMENT({ field: 'result', rule: 'is required (a JSON object)' });
      return tenant(ctx, async (trx): Promise<planV1.SubmitStepResultResponse> => {
        const loaded = await mustLoad(trx, req.planId, true);
        const at = now(); // under the plan lock: times follow commit order
        if (req.idempotencyKey) {
          const earlier = await trx
            .selectFrom('plan.step_result_submissions')
            .select(['step_id', 'response'])
            .where('plan_id', '=', req.planId)
            .where('idempotency_key', '=', req.idempotencyKey)
            .executeTakeFirst();
          if (earlier) {
            if (earlier.step_id !== req.stepId) {
              throw planErrors.INVALID_ARGUMENT({
                field: 'idempotencyKey',
                rule: `was already used for step ${earlier.step_id}; use a new key for another step`,
              });
            }
            const stored = earlier.response as { planStatus: PlanStatus };
            return { submitted: true, planStatus: planStatuses.valueOf(stored.planStatus) };
          }
        }
        const result = transition(loaded.snapshot, {
          type: 'submit_step_result',
          stepId: req.stepId,
          result: req.result as JsonValue,
          confidence: req.confidence ?? null,
          executionReport: req.stepExecutionReport ?? null,
          formattingNotes: req.outputFormattingNotes ?? null,
          sessionId: req.sessionId ?? null,
          at,
        });
        await applyEffects(
          trx,
          { orgId: ctx.identity.orgId, planId: req.planId, after: result.state, at },
          result.effects,
        );
        if (req.idempotencyKey) {
          await trx
            .insertInto('plan.step_result_submissions')
            .values({
              org_id: ctx.identity.orgId,
              plan_id: req.planId,
              idempotency_key: req.idempotencyKey,
              step_id: req.stepId,
              response: JSON.stringify({ submitted: true, planStatus: result.state.status }),
            })
            .execute();
        }
        return { submitted: true, planStatus: planStatuses.valueOf(result.state.status) };
      });
    }),

    getStepContext: unary(async (req: planV1.GetStepContextRequest, ctx) => {
      // The plan is checked first (a missing or foreign plan is an error), then its artifacts
      // are asked for outside the transaction, so no connection waits on another service.
      const context = await tenant(ctx, async (trx) => {
        const { snapshot } = await mustLoad(trx, req.planId, false);
        const byId = new Map(snapshot.steps.map((s) => [s.id, s]));
        const current = byId.get(req.stepId);
        if (!current) throw planErrors.STEP_NOT_FOUND({ stepId: req.stepId });
        const prior = req.priorStepIds.length
          ? req.priorStepIds
              .map((id) => {
                const step = byId.get(id);
                if (!step) throw planErrors.STEP_NOT_FOUND({ stepId: id });
                return step;
              })
              .sort((a, b) => a.order - b.order)
          : snapshot.steps.filter((s) => s.status === 'completed' && s.order < current.order);
        return {
          currentStep: overview(current),
          priorSteps: prior.map((s) => ({
            stepId: s.id,
            stepOrder: s.order,
            stepType: stepTypes.valueOf(s.type),
            resultSummary: summarizeResult(s.result),
            confidence: s.confidence ?? undefined,
          })),
        };
      });
      return { ...context, artifacts: await artifacts.list(ctx, req.planId) };
    }),

    requestUserReview: unary(async (req: planV1.RequestUserReviewRequest, ctx) => {
      return tenant(ctx, async (trx): Promise<planV1.RequestUserReviewResponse> => {
        const { result, at } = await mutate(trx, ctx, req.planId, {
          type: 'request_review',
          stepId: req.stepId,
          summary: req.summary,
          questions: req.questions,
          sessionId: req.sessionId ?? null,
        });
        const review = await trx
          .insertInto('plan.user_reviews')
          .values({
            org_id: ctx.identity.orgId,
            plan_id: req.planId,
            step_id: req.stepId,
            summary: req.summary,
            questions: req.questions,
            requested_session_id: req.sessionId ?? null,
            requested_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const step = result.state.steps.find((s) => s.id === req.stepId)!;
        return {
          reviewId: review.id,
          stepStatus: stepStatuses.valueOf(step.status),
          planStatus: planStatuses.valueOf(result.state.status),
        };
      });
    }),

    submitUserDecision: unary(async (req: planV1.SubmitUserDecisionRequest, ctx) => {
      const decision = reviewDecisions.required(req.decision, 'decision');
      return tenant(ctx, async (trx): Promise<planV1.SubmitUserDecisionResponse> => {
        const { result, at } = await mutate(trx, ctx, req.planId, {
          type: 'decide_review',
          stepId: req.stepId,
          decision,
          feedback: req.feedback ?? null,
          sessionId: req.sessionId ?? null,
        });
        const review = await trx
          .updateTable('plan.user_reviews')
          .set({ decision, feedback: req.feedback ?? null, decided_session_id: req.sessionId ?? null, decided_at: at })
          .where('step_id', '=', req.stepId)
          .where('decision', 'is', null)
          .returning('id')
          .executeTakeFirst();
        if (!review) throw new Error(`step ${req.stepId} was awaiting input without an open review`);
        const step = result.state.steps.find((s) => s.id === req.stepId)!;
        return {
          reviewId: review.id,
          decision: req.decision,
          stepStatus: stepStatuses.valueOf(step.status),
          planStatus: planStatuses.valueOf(result.state.status),
        };
      });
    }),

    getResearchContext: unary(async (req: planV1.GetResearchContextRequest, ctx) => {
      const context = await tenant(ctx, async (trx): Promise<planV1.GetResearchContextResponse> => {
        const { plan, snapshot } = await mustLoad(trx, req.planId, Boolean(req.sessionId));
        const at = now();
        let steps = snapshot.steps;
        if (req.sessionId) {
          // Resuming is recorded (session_resumed) so the audit trail shows who picked the plan up.
          const result = transition(snapshot, { type: 'resume_session', sessionId: req.sessionId, at });
          await applyEffects(
            trx,
            { orgId: ctx.identity.orgId, planId: plan.id, after: result.state, at },
            result.effects,
          );
          steps = result.state.steps;
        }
        const [audit, skill, prefs] = await Promise.all([
          trx
            .selectFrom('plan.plan_audit_log')
            .selectAll()
            .where('plan_id', '=', plan.id)
            .orderBy('id', 'desc')
            .limit(20)
            .execute(),
          trx
            .selectFrom('plan.skill_executions')
            .selectAll()
            .where((eb) =>
              plan.skill_execution_id ? eb('id', '=', plan.skill_execution_id) : eb('plan_id', '=', plan.id),
            )
            .orderBy('started_at', 'desc')
            .limit(1)
            .executeTakeFirst(),
          outputPreferences(trx),
        ]);
        const { status: reported } = reportedStatus(plan, snapshot, at);
        return {
          plan: {
            planId: plan.id,
            name: plan.name,
            researchQuestion: plan.research_question,
            status: planStatuses.valueOf(reported),
            progress: progress(steps),
            totalSteps: steps.length,
            planDesignRationale: plan.plan_design_rationale ?? undefined,
            planFormattingNotes: plan.plan_formatting_notes ?? undefined,
            sessionId: plan.session_id ?? undefined,
            createdAt: plan.created_at,
            updatedAt: plan.updated_at,
          },
          steps: steps.map((s) => ({
            stepId: s.id,
            stepOrder: s.order,
            stepType: stepTypes.valueOf(s.type),
            status: stepStatuses.valueOf(s.status),
            instructions: s.instructions,
            result: asObject(s.result),
            confidence: s.confidence ?? undefined,
            stepExecutionReport: s.executionReport ?? undefined,
            outputFormattingNotes: s.formattingNotes ?? undefined,
            failureReason: s.failureReason ?? undefined,
            startedAt: s.startedAt ?? undefined,
            completedAt: s.completedAt ?? undefined,
          })),
          artifacts: [],
          recentAuditEvents: audit.map((row) => ({
            eventId: Number(row.id),
            eventType: auditEventTypes.valueOf(row.event_type),
            stepId: row.step_id ?? undefined,
            sessionId: row.session_id ?? undefined,
            details: asObject(row.details),
            occurredAt: row.occurred_at,
          })),
          skillExecution: skill ? skillExecutionOf(skill) : undefined,
          outputPreferences: prefs,
        };
      });
      return { ...context, artifacts: await artifacts.list(ctx, req.planId) };
    }),

    logSkillExecution: unary(async (req: planV1.LogSkillExecutionRequest, ctx) => {
      const state = skillStatuses.required(req.status, 'status');
      const terminal = state === 'completed' || state === 'failed';
      return tenant(ctx, async (trx): Promise<planV1.LogSkillExecutionResponse> => {
        const at = now();
        if (req.planId) {
          const plan = await trx
            .selectFrom('plan.research_plans')
            .select('id')
            .where('id', '=', req.planId)
            .executeTakeFirst();
          if (!plan) throw planErrors.PLAN_NOT_FOUND({ planId: req.planId });
        }
        if (!req.executionId) {
          const row = await trx
            .insertInto('plan.skill_executions')
            .values({
              org_id: ctx.identity.orgId,
              skill_name: req.skillName,
              status: state,
              plan_id: req.planId ?? null,
              session_id: req.sessionId ?? null,
              metadata: JSON.stringify(req.metadata ?? {}),
              error_message: req.errorMessage ?? null,
              started_at: at,
              updated_at: at,
              completed_at: terminal ? at : null,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          return { executionId: row.id, skillName: req.skillName, status: req.status, stored: true };
        }
        const existing = await trx
          .selectFrom('plan.skill_executions')
          .selectAll()
          .where('id', '=', req.executionId)
          .forUpdate()
          .executeTakeFirst();
        if (!existing) throw planErrors.SKILL_EXECUTION_NOT_FOUND({ executionId: req.executionId });
        if (existing.skill_name !== req.skillName) {
          throw planErrors.INVALID_ARGUMENT({
            field: 'skillName',
            rule: `must stay "${existing.skill_name}" for execution ${existing.id}`,
          });
        }
        if ((existing.status === 'completed' || existing.status === 'failed') && existing.status !== state) {
          throw planErrors.SKILL_EXECUTION_FINISHED({ executionId: existing.id, status: existing.status });
        }
        await trx
          .updateTable('plan.skill_executions')
          .set({
            status: state,
            // Shallow merge: keys sent now replace the stored ones, the rest stay.
            metadata: sql`metadata || ${JSON.stringify(req.metadata ?? {})}::jsonb` as never,
            error_message: req.errorMessage ?? existing.error_message,
            plan_id: existing.plan_id ?? req.planId ?? null,
            session_id: existing.session_id ?? req.sessionId ?? null,
            completed_at: terminal ? (existing.completed_at ?? at) : null,
            updated_at: at,
          })
          .where('id', '=', existing.id)
          .execute();
        return { executionId: existing.id, skillName: req.skillName, status: req.status, stored: true };
      });
    }),

    submitResearchFeedback: unary(async (req: planV1.SubmitResearchFeedbackRequest, ctx) => {
      const feedbackType = feedbackTypes.required(req.feedbackType, 'feedbackType');
      return tenant(ctx, async (trx): Promise<planV1.SubmitResearchFeedbackResponse> => {
        const { snapshot } = await mustLoad(trx, req.planId, true);
        const at = now();
        const row = await trx
          .insertInto('plan.research_feedback')
          .values({
            org_id: ctx.identity.orgId,
            plan_id: req.planId,
            feedback_type: feedbackType,
            user_satisfaction: req.userSatisfaction ?? null,
            user_feedback_summary: req.userFeedbackSummary ?? null,
            improvement_suggestions: req.improvementSuggestions ?? null,
            follow_up_requested: req.followUpRequested ?? null,
            follow_up_details: req.followUpDetails ?? null,
            session_id: req.sessionId ?? null,
            created_at: at,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const result = transition(snapshot, {
          type: 'record_feedback',
          feedbackId: row.id,
          feedbackType,
          sessionId: req.sessionId ?? null,
          at,
        });
        await applyEffects(
          trx,
          { orgId: ctx.identity.orgId, planId: req.planId, after: result.state, at },
          result.effects,
        );
        return { feedbackId: row.id, feedbackType: req.feedbackType, stored: true };
      });
    }),

    resolvePlanReference: unary(async (req: planV1.ResolvePlanReferenceRequest, ctx) => {
      // Internal: callers pass IDs they did not validate; anything that is not a UUID is missing.
      if (!UUID.test(req.planId)) throw planErrors.PLAN_NOT_FOUND({ planId: req.planId });
      if (req.stepId !== undefined && !UUID.test(req.stepId)) throw planErrors.STEP_NOT_FOUND({ stepId: req.stepId });
      return tenant(ctx, async (trx): Promise<planV1.ResolvePlanReferenceResponse> => {
        const plan = await trx
          .selectFrom('plan.research_plans')
          .select('id')
          .where('id', '=', req.planId)
          .executeTakeFirst();
        if (!plan) throw planErrors.PLAN_NOT_FOUND({ planId: req.planId });
        if (req.stepId === undefined) return { planId: plan.id };
        const step = await trx
          .selectFrom('plan.plan_steps')
          .select('id')
          .where('plan_id', '=', plan.id)
          .where('id', '=', req.stepId)
          .executeTakeFirst();
        if (!step) throw planErrors.STEP_NOT_FOUND({ stepId: req.stepId });
        return { planId: plan.id, stepId: step.id };
      });
    }),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function skillExecutionOf(row: {
  id: string;
  skill_name: string;
  status: string;
  plan_id: string | null;
  session_id: string | null;
  metadata: unknown;
  error_message: string | null;
  started_at: Date;
  completed_at: Date | null;
  duration_ms: string | null;
}): planV1.SkillExecution {
  return {
    executionId: row.id,
    skillName: row.skill_name,
    status: skillStatuses.valueOf(row.status as 'started'),
    planId: row.plan_id ?? undefined,
    sessionId: row.session_id ?? undefined,
    metadata: asObject(row.metadata),
    errorMessage: row.error_message ?? undefined,
    startedAt: row.started_at,
    completedAt: row.completed_at ?? undefined,
    durationMs: row.duration_ms === null ? undefined : Number(row.duration_ms),
  };
}
