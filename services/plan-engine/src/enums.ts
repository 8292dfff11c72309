import { planV1 } from '@quarry/contracts';
import type { PlanStatus, StepStatus, StepType } from './core/index.js';
import { planErrors } from './errors.js';

/**
 * Proto enums (STEP_TYPE_SEARCH) ↔ the core's names (search). The generated `*ToJSON`
 * functions give the proto name; the core's name is the same without its prefix, lowercased.
 */
function codec<P extends number, C extends string>(
  prefix: string,
  toJson: (v: P) => string,
  fromJson: (v: string) => P,
  field: string,
) {
  return {
    toCore(value: P): C {
      const name = toJson(value);
      if (!name.startsWith(prefix) || name.endsWith('_UNSPECIFIED') || name === 'UNRECOGNIZED') {
        throw planErrors.INVALID_ARGUMENT({ field, rule: 'is required and must be one of the listed values' });
      }
      return name.slice(prefix.length).toLowerCase() as C;
    },
    toProto(value: C): P {
      return fromJson(`${prefix}${value.toUpperCase()}`);
    },
  };
}

export const stepTypes = codec<planV1.StepType, StepType>(
  'STEP_TYPE_',
  planV1.stepTypeToJSON,
  planV1.stepTypeFromJSON,
  'stepType',
);
export const stepStatuses = codec<planV1.StepStatus, StepStatus>(
  'STEP_STATUS_',
  planV1.stepStatusToJSON,
  planV1.stepStatusFromJSON,
  'status',
);
export const planStatuses = codec<planV1.PlanStatus, PlanStatus>(
  'PLAN_STATUS_',
  planV1.planStatusToJSON,
  planV1.planStatusFromJSON,
  'status',
);
export const branchActions = codec<planV1.BranchAction, 'skip_to' | 'fail' | 'continue'>(
  'BRANCH_ACTION_',
  planV1.branchActionToJSON,
  planV1.branchActionFromJSON,
  'ifTrueAction',
);
export const modifyActions = codec<
  planV1.ModifyPlanAction,
  'add_steps' | 'remove_step' | 'reorder_steps' | 'update_step_instructions' | 'fail_step'
>('MODIFY_PLAN_ACTION_', planV1.modifyPlanActionToJSON, planV1.modifyPlanActionFromJSON, 'action');
export const nextStepStatuses = codec<
  planV1.NextStepStatus,
  'next_step' | 'plan_complete' | 'plan_failed' | 'awaiting_review' | 'no_pending_steps'
>('NEXT_STEP_STATUS_', planV1.nextStepStatusToJSON, planV1.nextStepStatusFromJSON, 'status');
export const reviewDecisions = codec<planV1.ReviewDecision, 'approve' | 'reject' | 'modify' | 'skip'>(
  'REVIEW_DECISION_',
  planV1.reviewDecisionToJSON,
  planV1.reviewDecisionFromJSON,
  'decision',
);
export const skillStatuses = codec<planV1.SkillExecutionStatus, 'started' | 'executing' | 'completed' | 'failed'>(
  'SKILL_EXECUTION_STATUS_',
  planV1.skillExecutionStatusToJSON,
  planV1.skillExecutionStatusFromJSON,
  'status',
);
export const feedbackTypes = codec<planV1.FeedbackType, 'initial' | 'closing'>(
  'FEEDBACK_TYPE_',
  planV1.feedbackTypeToJSON,
  planV1.feedbackTypeFromJSON,
  'feedbackType',
);
export const mediaTypes = codec<
  planV1.OutputMediaType,
  'conversation' | 'markdown' | 'html' | 'word' | 'excel' | 'powerpoint'
>('OUTPUT_MEDIA_TYPE_', planV1.outputMediaTypeToJSON, planV1.outputMediaTypeFromJSON, 'outputMediaType');
export const auditTypes = codec<planV1.AuditEventType, string>(
  'AUDIT_EVENT_TYPE_',
  planV1.auditEventTypeToJSON,
  planV1.auditEventTypeFromJSON,
  'eventType',
);
