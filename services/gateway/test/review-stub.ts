import { randomUUID } from 'node:crypto';
import { QuarryError, status } from '@quarry/grpc';
import type { Principal } from '@quarry/gateway';
import type { StubBackends } from './stub-backend.js';

// The plan engine's two review rpcs, stubbed for the elicitation round trip's tests: plans with
// one step in progress, request_user_review opening a review and submit_user_decision deciding
// it — refusing as the plan engine does where those tests depend on it (another org's plan is a
// missing one, a plan no longer awaiting review, a review that is no longer the step's open one).
// What the gateway records is read back as the plan engine's audit log would show it.

type PlanStatus = 'executing' | 'awaiting_review' | 'failed';
type StepStatus = 'in_progress' | 'awaiting_input' | 'completed' | 'skipped' | 'failed';

interface ReviewedPlan {
  orgId: string;
  status: PlanStatus;
  stepId: string;
  step: StepStatus;
  openReview: string | undefined;
  /** The actions of the plan's user_reviewed audit events, oldest first. */
  reviews: string[];
}

/** What each decision does to the step and the plan (as the plan engine's transitions do). */
const DECIDED: Record<string, { step: StepStatus; plan: PlanStatus }> = {
  REVIEW_DECISION_APPROVE: { step: 'completed', plan: 'executing' },
  REVIEW_DECISION_SKIP: { step: 'skipped', plan: 'executing' },
  REVIEW_DECISION_MODIFY: { step: 'in_progress', plan: 'executing' },
  REVIEW_DECISION_REJECT: { step: 'failed', plan: 'failed' },
};

const stepStatus = (s: StepStatus) => `STEP_STATUS_${s.toUpperCase()}`;
const planStatus = (s: PlanStatus) => `PLAN_STATUS_${s.toUpperCase()}`;

/** What the tests read of a plan: its status and its review audit actions, oldest first. */
interface Standing {
  status: string;
  reviews: string[];
}

/** A plan whose step waits for the user's decision after one review request. */
export const AWAITING: Standing = { status: 'awaiting_review', reviews: ['review_requested'] };

/** Installs the two review rpcs on `stub`; `stepInProgress` makes a plan of the caller's org to review. */
export function stubReviewDesk(stub: StubBackends) {
  const plans = new Map<string, ReviewedPlan>();

  const planOf = (request: Record<string, unknown>, principal: Principal) => {
    const planId = String(request.planId);
    const plan = plans.get(planId);
    // Another org's plan is indistinguishable from a missing one.
    if (!plan || plan.orgId !== principal.orgId)
      throw new QuarryError('PLAN_NOT_FOUND', status.NOT_FOUND, `No research plan with id ${planId}.`);
    if (plan.stepId !== request.stepId)
      throw new QuarryError(
        'STEP_NOT_FOUND',
        status.NOT_FOUND,
        `Step ${String(request.stepId)} not found in this plan`,
      );
    return plan;
  };
  const requirePlan = (plan: ReviewedPlan, allowed: PlanStatus, tool: string) => {
    if (plan.status !== allowed)
      throw new QuarryError(
        'PLAN_STATE_CONFLICT',
        status.FAILED_PRECONDITION,
        `Plan is ${plan.status}; ${tool} needs a plan that is ${allowed}`,
      );
  };

  stub.reply('request_user_review', (request, { principal }) => {
    const plan = planOf(request, principal);
    requirePlan(plan, 'executing', 'request_user_review');
    if (plan.step !== 'in_progress')
      throw new QuarryError('STEP_STATE_CONFLICT', status.FAILED_PRECONDITION, `Step 1 is ${plan.step}`);
    plan.openReview = randomUUID();
    plan.step = 'awaiting_input';
    plan.status = 'awaiting_review';
    plan.reviews.push('review_requested');
    return { reviewId: plan.openReview, stepStatus: stepStatus(plan.step), planStatus: planStatus(plan.status) };
  });

  stub.reply('submit_user_decision', (request, { principal }) => {
    const plan = planOf(request, principal);
    requirePlan(plan, 'awaiting_review', 'submit_user_decision');
    const reviewId = plan.openReview!;
    // The plan engine checks this under the plan lock and rolls the decision back: nothing is recorded.
    if (request.reviewId !== undefined && request.reviewId !== reviewId)
      throw new QuarryError(
        'REVIEW_NOT_OPEN',
        status.FAILED_PRECONDITION,
        `Review ${String(request.reviewId)} is no longer open on step ${plan.stepId} (it was decided; the step's open review is another one). Nothing was recorded.`,
      );
    const decided = DECIDED[String(request.decision)]!;
    plan.step = decided.step;
    plan.status = decided.plan;
    plan.openReview = undefined;
    plan.reviews.push('decision_submitted');
    return {
      reviewId,
      decision: request.decision as string,
      stepStatus: stepStatus(plan.step),
      planStatus: planStatus(plan.status),
    };
  });

  return {
    /** A new plan of `owner`'s org, executing, whose one step is in progress. */
    stepInProgress(owner: Principal) {
      const planId = randomUUID();
      const stepId = randomUUID();
      plans.set(planId, {
        orgId: owner.orgId,
        status: 'executing',
        stepId,
        step: 'in_progress',
        openReview: undefined,
        reviews: [],
      });
      return { planId, stepId };
    },
    /** Where the plan stands, and what was recorded of its reviews. */
    standing(planId: string): Standing {
      const plan = plans.get(planId)!;
      return { status: plan.status, reviews: [...plan.reviews] };
    },
    /** How many decisions the gateway submitted so far (recorded or refused). */
    decisionsSubmitted: () => stub.calls.filter((c) => c.tool === 'submit_user_decision').length,
  };
}

/** request_user_review's arguments for a step. */
export const reviewArgs = (ids: { planId: string; stepId: string }) => ({ ...ids, summary: 'Twelve sources found.' });
