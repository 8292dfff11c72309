import { enumNames, planV1 } from '@quarry/contracts';
import type { PlanStatus, StepStatus, StepType } from './core/index.js';
import { planErrors } from './errors.js';

/** Proto enums ↔ the core's names (`STEP_TYPE_SEARCH` ↔ `search`); a required one that is unset is INVALID_ARGUMENT. */
const invalid = (field: string) =>
  planErrors.INVALID_ARGUMENT({ field, rule: 'is required and must be one of the listed values' });

export const stepTypes = enumNames<planV1.StepType, StepType>(planV1.StepType, invalid);
export const stepStatuses = enumNames<planV1.StepStatus, StepStatus>(planV1.StepStatus, invalid);
export const planStatuses = enumNames<planV1.PlanStatus, PlanStatus>(planV1.PlanStatus, invalid);
export const branchActions = enumNames<planV1.BranchAction, 'skip_to' | 'fail' | 'continue'>(
  planV1.BranchAction,
  invalid,
);
export const modifyActions = enumNames<
  planV1.ModifyPlanAction,
  'add_steps' | 'remove_step' | 'reorder_steps' | 'update_step_instructions' | 'fail_step'
>(planV1.ModifyPlanAction, invalid);
export const nextStepStatuses = enumNames<
  planV1.NextStepStatus,
  'next_step' | 'plan_complete' | 'plan_failed' | 'awaiting_review' | 'no_pending_steps'
>(planV1.NextStepStatus, invalid);
export const reviewDecisions = enumNames<planV1.ReviewDecision, 'approve' | 'reject' | 'modify' | 'skip'>(
  planV1.ReviewDecision,
  invalid,
);
export const skillStatuses = enumNames<planV1.SkillExecutionStatus, 'started' | 'executing' | 'completed' | 'failed'>(
  planV1.SkillExecutionStatus,
  invalid,
);
export const feedbackTypes = enumNames<planV1.FeedbackType, 'initial' | 'closing'>(planV1.FeedbackType, invalid);
export const userSatisfactions = enumNames<planV1.UserSatisfaction, 'positive' | 'neutral' | 'negative' | 'none'>(
  planV1.UserSatisfaction,
  invalid,
);
export const mediaTypes = enumNames<
  planV1.OutputMediaType,
  'conversation' | 'markdown' | 'html' | 'word' | 'excel' | 'powerpoint'
>(planV1.OutputMediaType, invalid);
export const auditEventTypes = enumNames<planV1.AuditEventType, string>(planV1.AuditEventType, invalid);
export const researchDepths = enumNames<planV1.ResearchDepth, 'scan' | 'standard' | 'deep'>(
  planV1.ResearchDepth,
  invalid,
);
