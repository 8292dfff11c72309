import { defineErrors, QuarryError, status } from '@quarry/grpc';
import { PlanEngineError } from './core/index.js';

/**
 * The plan engine's error catalogue. Codes are stable: the gateway passes them to the model as
 * the tool error's `code`. A plan or step of another org is indistinguishable from a missing one.
 */
export const planErrors = defineErrors({
  PLAN_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { planId: string }) => `No research plan with id ${p.planId}.`,
  },
  STEP_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { stepId: string }) => `Step ${p.stepId} is not part of this plan.`,
  },
  SKILL_EXECUTION_NOT_FOUND: {
    status: status.NOT_FOUND,
    message: (p: { executionId: string }) => `No skill execution with id ${p.executionId}.`,
  },
  INVALID_ARGUMENT: {
    status: status.INVALID_ARGUMENT,
    message: (p: { field: string; rule: string }) => `\`${p.field}\` ${p.rule}.`,
  },
  INVALID_CURSOR: {
    status: status.INVALID_ARGUMENT,
    message:
      '`cursor` is not a cursor returned by list_active_plans or list_plans for the same filters; call again without it to start over.',
  },
  REVIEW_NOT_OPEN: {
    status: status.FAILED_PRECONDITION,
    message: (p: { reviewId: string; stepId: string }) =>
      `Review ${p.reviewId} is no longer open on step ${p.stepId} (it was decided; the step's open review is another one). Nothing was recorded.`,
  },
  SKILL_EXECUTION_FINISHED: {
    status: status.FAILED_PRECONDITION,
    message: (p: { executionId: string; status: string }) =>
      `Skill execution ${p.executionId} already ${p.status}; start a new one instead.`,
  },
});

const STATUS_BY_KIND = {
  invalid_argument: status.INVALID_ARGUMENT,
  not_found: status.NOT_FOUND,
  failed_precondition: status.FAILED_PRECONDITION,
} as const;

/** The core's typed refusals keep their code and message; the kind picks the gRPC status. */
export function toServiceError(error: unknown): unknown {
  if (error instanceof PlanEngineError) {
    return new QuarryError(
      error.code,
      STATUS_BY_KIND[error.kind],
      error.message,
      error.details as Record<string, unknown> | undefined,
    );
  }
  return error;
}
