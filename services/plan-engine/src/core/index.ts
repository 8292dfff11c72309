export * from './types.js';
export {
  PlanEngineError,
  ExpressionError,
  type PlanErrorCode,
  type PlanErrorKind,
  type ExpressionErrorCode,
} from './errors.js';
export * from './expression/index.js';
export {
  claimableStep,
  currentStep,
  derivePlanStatus,
  doneStepCount,
  isDoneStepStatus,
  isFinishedStepStatus,
  isPlanStalled,
  isTerminalPlanStatus,
  progress,
  reportedPlanStatus,
  stalledStepIds,
} from './status.js';
export {
  type AuditEvent,
  type AuditEventType,
  type AuditPayloads,
  type BranchTaken,
  type PlanModification,
  type StatusChangeCause,
} from './audit.js';
export type { Effect } from './effects.js';
export {
  MODIFY_EVENT_TYPES,
  PLAN_EVENT_TYPES,
  REVIEW_DECISIONS,
  type NewStep,
  type PlanEvent,
  type PlanEventType,
  type ReviewDecision,
} from './events.js';
export { describeCondition, type BranchingConditionInput } from './branching.js';
export type { ClaimOutcome } from './transitions/change.js';
export { transition, type TransitionResult } from './transition.js';
export { createPlan, type CreatePlanInput } from './create.js';
export { cancelPlan, type CancelDecision } from './cancel.js';
export { archiveEffects } from './archive.js';
export { modifyFieldViolation } from './modify-arguments.js';
export { summarizeResult } from './result-summary.js';
export { isFinishedSkillStatus } from './skill-execution.js';
export { type ChainedAuditRow, type ChainedTombstone } from './audit-chain.js';
export { assertEd25519, type SignedCheckpoint } from './audit-checkpoint.js';
export { verifyAuditChain, type ChainBreak, type ChainVerification } from './audit-chain-verify.js';
