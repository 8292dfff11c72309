import { QuarryError, status } from '@quarry/grpc';
import type { Principal } from '@quarry/gateway';
import type { PlanRecord, ResearchRecords } from './research-records.js';
import { planStatus } from './research-replies.js';
import type { StubBackends, StubReply } from './stub-backend.js';

// What the web app's library pages call beyond research-replies.ts, answered from the same
// research records as the services answer: list_plans with its filters, get_research_context
// with the audit events (review requests and decisions), the plan actions, the review decision,
// the artifacts' tags, get_plan_status with whether the plan is archived. Only the caller's organization; another org's id is missing.

type Request = Record<string, unknown>;
type Reply = Awaited<ReturnType<StubReply>>;

interface AuditEvent {
  eventId: number;
  eventType: string;
  stepId?: string;
  eventData: Record<string, unknown>;
  createdAt: string;
}

const enumOf = (prefix: string, value: string) => `${prefix}_${value.toUpperCase()}`;
const plain = (prefix: string, value: unknown) =>
  String(value)
    .slice(prefix.length + 1)
    .toLowerCase();

function missing(code: string, id: unknown): never {
  throw new QuarryError(code, status.NOT_FOUND, `${code}: nothing with the id ${String(id)} in your organization.`);
}

export function answerWebLibraryTools(stub: StubBackends, records: ResearchRecords) {
  const archived = new Set<string>();
  const events = new Map<string, AuditEvent[]>();
  let eventId = 0;
  const log = (plan: PlanRecord, eventType: string, eventData: Record<string, unknown>, stepId?: string) => {
    const list = events.get(plan.planId) ?? [];
    list.push({
      eventId: ++eventId,
      eventType,
      stepId,
      eventData,
      createdAt: new Date(Date.parse('2026-03-02T10:00:00Z') + eventId * 60_000).toISOString(),
    });
    events.set(plan.planId, list);
  };
  const reply = (tool: string, answer: (request: Request, principal: Principal) => unknown) =>
    stub.reply(tool, (request, { principal }) => answer(request, principal) as Reply);
  const planOf = (request: Request, principal: Principal) =>
    records.plans.find((p) => p.orgId === principal.orgId && p.planId === request.planId) ??
    missing('PLAN_NOT_FOUND', request.planId);
  const settle = (plan: PlanRecord) => {
    const steps = plan.steps;
    plan.status = steps.some((s) => s.status === 'failed')
      ? 'failed'
      : steps.some((s) => s.status === 'awaiting_input')
        ? 'awaiting_review'
        : steps.every((s) => s.status === 'completed' || s.status === 'skipped')
          ? 'completed'
          : 'executing';
    plan.updatedAt = new Date(Date.parse(plan.updatedAt) + 1000).toISOString();
  };

  reply('list_plans', (request, principal) => {
    const query = typeof request.query === 'string' ? request.query.toLowerCase() : undefined;
    const wanted = request.status === undefined ? undefined : plain('PLAN_STATUS', request.status);
    const since = typeof request.updatedSince === 'string' ? request.updatedSince : undefined;
    const plans = records.plans
      .filter((p) => p.orgId === principal.orgId)
      .filter((p) => request.includeArchived === true || !archived.has(p.planId))
      .filter((p) => !wanted || p.status === wanted)
      .filter((p) => !query || `${p.name}\n${p.researchQuestion}`.toLowerCase().includes(query))
      .filter((p) => !since || p.updatedAt >= since)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
    return {
      plans: plans.map((plan) => ({
        planId: plan.planId,
        name: plan.name,
        researchQuestion: plan.researchQuestion,
        status: enumOf('PLAN_STATUS', plan.status),
        progress: (100 * plan.steps.filter((s) => s.status === 'completed').length) / plan.steps.length,
        totalSteps: plan.steps.length,
        completedSteps: plan.steps.filter((s) => s.status === 'completed').length,
        archived: archived.has(plan.planId),
        createdAt: plan.createdAt,
        updatedAt: plan.updatedAt,
      })),
    };
  });

  reply('get_research_context', (request, principal) => {
    const plan = planOf(request, principal);
    return {
      plan: {
        id: plan.planId,
        name: plan.name,
        researchQuestion: plan.researchQuestion,
        status: enumOf('PLAN_STATUS', plan.status),
        progress: 0,
        totalSteps: plan.steps.length,
        createdAt: plan.createdAt,
        updatedAt: plan.updatedAt,
      },
      steps: plan.steps.map((step) => ({
        stepId: step.stepId,
        stepOrder: step.stepOrder,
        stepType: enumOf('STEP_TYPE', step.stepType),
        status: enumOf('STEP_STATUS', step.status),
        instructions: step.instructions,
        ...(step.confidence !== undefined ? { confidence: step.confidence } : {}),
        ...(step.result ? { result: step.result } : {}),
      })),
      artifacts: records.artifacts
        .filter((a) => a.orgId === principal.orgId && a.planId === plan.planId)
        .map((a) => ({ id: a.id, artifactType: a.artifactType, title: a.title, createdAt: a.createdAt })),
      recentAuditEvents: [...(events.get(plan.planId) ?? [])].reverse().map((event) => ({
        ...event,
        eventType: enumOf('AUDIT_EVENT_TYPE', event.eventType),
      })),
    };
  });

  reply('get_plan_status', (request, principal) => {
    const plan = planOf(request, principal);
    return { ...planStatus(plan), archived: archived.has(plan.planId) };
  });
  reply('archive_plan', (request, principal) => {
    const plan = planOf(request, principal);
    archived.add(plan.planId);
    return { planId: plan.planId, archived: true, status: enumOf('PLAN_STATUS', plan.status) };
  });
  reply('unarchive_plan', (request, principal) => {
    const plan = planOf(request, principal);
    archived.delete(plan.planId);
    return { planId: plan.planId, archived: false, status: enumOf('PLAN_STATUS', plan.status) };
  });
  reply('cancel_plan', (request, principal) => {
    const plan = planOf(request, principal);
    if (plan.status === 'completed' || plan.status === 'failed')
      throw new QuarryError('PLAN_STATE_CONFLICT', status.FAILED_PRECONDITION, `The plan is ${plan.status}.`);
    const previous = plan.status;
    plan.status = 'cancelled';
    log(plan, 'plan_status_changed', { from: previous, to: 'cancelled', cause: 'cancel_plan', reason: request.reason });
    return { planId: plan.planId, status: 'PLAN_STATUS_CANCELLED', previousStatus: enumOf('PLAN_STATUS', previous) };
  });
  reply('delete_plan', (request, principal) => {
    const plan = planOf(request, principal);
    records.plans.splice(records.plans.indexOf(plan), 1);
    return {
      planId: plan.planId,
      deleted: true,
      stepsDeleted: plan.steps.length,
      artifactsDeleted: 0,
      outputsDeleted: 0,
      extractionResultsDeleted: 0,
    };
  });

  reply('submit_user_decision', (request, principal) => {
    const plan = planOf(request, principal);
    const step = plan.steps.find((s) => s.stepId === request.stepId) ?? missing('STEP_NOT_FOUND', request.stepId);
    if (step.status !== 'awaiting_input')
      throw new QuarryError(
        'STEP_STATE_CONFLICT',
        status.FAILED_PRECONDITION,
        `Step ${step.stepOrder} is ${step.status}.`,
      );
    const decision = plain('REVIEW_DECISION', request.decision);
    if (decision === 'modify' && !request.feedback)
      throw new QuarryError(
        'INVALID_ARGUMENT',
        status.INVALID_ARGUMENT,
        'feedback: say what to change to request changes.',
      );
    step.status = ({ approve: 'completed', reject: 'failed', modify: 'in_progress', skip: 'skipped' } as const)[
      decision as 'approve'
    ];
    log(
      plan,
      'user_reviewed',
      { action: 'decision_submitted', decision, feedback: request.feedback ?? null },
      step.stepId,
    );
    settle(plan);
    return {
      reviewId: `review-${step.stepId}`,
      decision: request.decision as string,
      stepStatus: enumOf('STEP_STATUS', step.status),
      planStatus: enumOf('PLAN_STATUS', plan.status),
    };
  });

  reply('update_artifact_tags', (request, principal) => {
    const artifact =
      records.artifacts.find((a) => a.orgId === principal.orgId && a.id === request.id) ??
      missing('ARTIFACT_NOT_FOUND', request.id);
    const remove = new Set((request.remove as string[] | undefined) ?? []);
    const before = artifact.tags.join('\n');
    artifact.tags = [...new Set([...artifact.tags, ...((request.add as string[] | undefined) ?? [])])].filter(
      (tag) => !remove.has(tag),
    );
    return { id: artifact.id, tags: artifact.tags, changed: before !== artifact.tags.join('\n') };
  });
  reply('list_tags', (_request, principal) => {
    const counts = new Map<string, number>();
    for (const a of records.artifacts.filter((x) => x.orgId === principal.orgId))
      for (const tag of a.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    return { tags: [...counts].map(([tag, count]) => ({ tag, count })) };
  });

  return {
    /** The step of this order put up for the user's review, as request_user_review records it. */
    requestReview(plan: PlanRecord, stepOrder: number, summary: string, questions: string[] = []) {
      const step = plan.steps[stepOrder - 1]!;
      step.status = 'awaiting_input';
      log(plan, 'user_reviewed', { action: 'review_requested', summary, questions }, step.stepId);
      settle(plan);
    },
    isArchived: (planId: string) => archived.has(planId),
  };
}
