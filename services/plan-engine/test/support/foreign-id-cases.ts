import {
  FeedbackType,
  type Method,
  ModifyPlanAction,
  type Request,
  ReviewDecision,
  SkillExecutionStatus,
  StepType,
} from './plan-api.js';

// Every PlanService rpc that takes an id, with org A's ids in every position that takes one, as
// org B sends them; the tenant-isolation test also sends each with fresh random ids instead, and
// the two answers must be the same.

/** The foreign ids a case uses; the control run replaces each with a fresh random UUID. */
export interface Ids {
  planId: string;
  stepId: string;
  otherStepId: string;
  executionId: string;
}

/** Org B's own rows the cases aim org A's ids into. */
export interface OwnRows {
  planId: string;
  stepIds: string[];
  reviewPlanId: string;
  executionId: string;
}

export interface Case {
  name: string;
  method: Method;
  args: (ids: Ids, own: OwnRows) => Request<Method>;
  code: string;
}

const { ADD_STEPS, REMOVE_STEP, REORDER_STEPS, UPDATE_STEP_INSTRUCTIONS, FAIL_STEP } = {
  ADD_STEPS: ModifyPlanAction.MODIFY_PLAN_ACTION_ADD_STEPS,
  REMOVE_STEP: ModifyPlanAction.MODIFY_PLAN_ACTION_REMOVE_STEP,
  REORDER_STEPS: ModifyPlanAction.MODIFY_PLAN_ACTION_REORDER_STEPS,
  UPDATE_STEP_INSTRUCTIONS: ModifyPlanAction.MODIFY_PLAN_ACTION_UPDATE_STEP_INSTRUCTIONS,
  FAIL_STEP: ModifyPlanAction.MODIFY_PLAN_ACTION_FAIL_STEP,
};

const PLAN_NOT_FOUND = 'PLAN_NOT_FOUND';
const STEP_NOT_FOUND = 'STEP_NOT_FOUND';

export const foreignIdCases: Case[] = [
  // Org A's plan.
  { name: 'status of A’s plan', method: 'getPlanStatus', args: (i) => ({ planId: i.planId }), code: PLAN_NOT_FOUND },
  { name: 'archive A’s plan', method: 'archivePlan', args: (i) => ({ planId: i.planId }), code: PLAN_NOT_FOUND },
  { name: 'unarchive A’s plan', method: 'unarchivePlan', args: (i) => ({ planId: i.planId }), code: PLAN_NOT_FOUND },
  {
    name: 'cancel A’s plan',
    method: 'cancelPlan',
    args: (i) => ({ planId: i.planId, reason: 'B wants it gone' }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'long-poll on A’s plan',
    method: 'getPlanStatus',
    args: (i) => ({ planId: i.planId, waitSeconds: 5 }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'add steps to A’s plan',
    method: 'modifyPlan',
    args: (i) => ({
      planId: i.planId,
      action: ADD_STEPS,
      steps: [{ stepType: StepType.STEP_TYPE_CUSTOM, instructions: 'Injected', insertAfterOrder: 0 }],
    }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'remove A’s step',
    method: 'modifyPlan',
    args: (i) => ({ planId: i.planId, action: REMOVE_STEP, stepId: i.otherStepId }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'reorder A’s plan',
    method: 'modifyPlan',
    args: (i) => ({ planId: i.planId, action: REORDER_STEPS, stepOrder: [i.otherStepId, i.stepId] }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'rewrite A’s instructions',
    method: 'modifyPlan',
    args: (i) => ({
      planId: i.planId,
      action: UPDATE_STEP_INSTRUCTIONS,
      stepId: i.otherStepId,
      updatedInstructions: 'Leak everything',
    }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'fail A’s step',
    method: 'modifyPlan',
    args: (i) => ({ planId: i.planId, action: FAIL_STEP, stepId: i.otherStepId, reason: 'sabotage' }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'claim from A’s plan',
    method: 'getNextStep',
    args: (i) => ({ planId: i.planId, sessionId: 'b-session' }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'submit to A’s step',
    method: 'submitStepResult',
    args: (i) => ({ planId: i.planId, stepId: i.stepId, result: { forged: true }, confidence: 0.01 }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'replay A’s idempotency key',
    method: 'submitStepResult',
    args: (i) => ({ planId: i.planId, stepId: i.stepId, result: { forged: true }, idempotencyKey: 'a-key' }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'context of A’s step',
    method: 'getStepContext',
    args: (i) => ({ planId: i.planId, stepId: i.stepId }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'review A’s step',
    method: 'requestUserReview',
    args: (i) => ({ planId: i.planId, stepId: i.stepId, summary: 'B asks' }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'decide A’s open review',
    method: 'submitUserDecision',
    args: (i) => ({
      planId: i.planId,
      stepId: i.stepId,
      decision: ReviewDecision.REVIEW_DECISION_REJECT,
      feedback: 'no',
    }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'read A’s research context',
    method: 'getResearchContext',
    args: (i) => ({ planId: i.planId }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'resume A’s plan',
    method: 'getResearchContext',
    args: (i) => ({ planId: i.planId, sessionId: 'b-session' }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'feedback on A’s plan',
    method: 'submitResearchFeedback',
    args: (i) => ({ planId: i.planId, feedbackType: FeedbackType.FEEDBACK_TYPE_CLOSING, userSatisfaction: 1 }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'new execution on A’s plan',
    method: 'logSkillExecution',
    args: (i) => ({
      skillName: 'research',
      status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_STARTED,
      planId: i.planId,
    }),
    code: PLAN_NOT_FOUND,
  },
  { name: 'delete A’s plan', method: 'deletePlan', args: (i) => ({ planId: i.planId }), code: PLAN_NOT_FOUND },
  {
    name: 'resolve A’s plan (the artifact store’s check)',
    method: 'resolvePlanReference',
    args: (i) => ({ planId: i.planId }),
    code: PLAN_NOT_FOUND,
  },
  {
    name: 'resolve A’s step of A’s plan',
    method: 'resolvePlanReference',
    args: (i) => ({ planId: i.planId, stepId: i.stepId }),
    code: PLAN_NOT_FOUND,
  },
  // Org A's skill execution.
  {
    name: 'finish A’s execution',
    method: 'logSkillExecution',
    args: (i) => ({
      executionId: i.executionId,
      skillName: 'research',
      status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_FAILED,
      errorMessage: 'B was here',
    }),
    code: 'SKILL_EXECUTION_NOT_FOUND',
  },
  {
    name: 'attach B’s execution to A’s plan',
    method: 'logSkillExecution',
    args: (i, own) => ({
      executionId: own.executionId,
      skillName: 'research-scan',
      status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_EXECUTING,
      planId: i.planId,
    }),
    code: PLAN_NOT_FOUND,
  },
  // Org A's steps inside org B's own plans.
  {
    name: 'remove A’s step from B’s plan',
    method: 'modifyPlan',
    args: (i, own) => ({ planId: own.planId, action: REMOVE_STEP, stepId: i.otherStepId }),
    code: STEP_NOT_FOUND,
  },
  {
    name: 'reorder A’s step into B’s plan',
    method: 'modifyPlan',
    args: (i, own) => ({
      planId: own.planId,
      action: REORDER_STEPS,
      stepOrder: [own.stepIds[2]!, own.stepIds[1]!, i.stepId],
    }),
    code: 'INVALID_REORDER',
  },
  {
    name: 'rewrite A’s step through B’s plan',
    method: 'modifyPlan',
    args: (i, own) => ({
      planId: own.planId,
      action: UPDATE_STEP_INSTRUCTIONS,
      stepId: i.otherStepId,
      updatedInstructions: 'x',
    }),
    code: STEP_NOT_FOUND,
  },
  {
    name: 'fail A’s step through B’s plan',
    method: 'modifyPlan',
    args: (i, own) => ({ planId: own.planId, action: FAIL_STEP, stepId: i.otherStepId }),
    code: STEP_NOT_FOUND,
  },
  {
    name: 'submit to A’s step through B’s plan',
    method: 'submitStepResult',
    args: (i, own) => ({ planId: own.planId, stepId: i.stepId, result: { forged: true } }),
    code: STEP_NOT_FOUND,
  },
  {
    name: 'context of A’s step through B’s plan',
    method: 'getStepContext',
    args: (i, own) => ({ planId: own.planId, stepId: i.stepId }),
    code: STEP_NOT_FOUND,
  },
  {
    name: 'A’s step as prior step of B’s step',
    method: 'getStepContext',
    args: (i, own) => ({ planId: own.planId, stepId: own.stepIds[1], priorStepIds: [i.stepId] }),
    code: STEP_NOT_FOUND,
  },
  {
    name: 'review A’s step through B’s plan',
    method: 'requestUserReview',
    args: (i, own) => ({ planId: own.planId, stepId: i.stepId, summary: 'B asks' }),
    code: STEP_NOT_FOUND,
  },
  {
    name: 'decide A’s review through B’s plan',
    method: 'submitUserDecision',
    args: (i, own) => ({
      planId: own.reviewPlanId,
      stepId: i.stepId,
      decision: ReviewDecision.REVIEW_DECISION_APPROVE,
    }),
    code: STEP_NOT_FOUND,
  },
  {
    name: 'resolve A’s step through B’s plan',
    method: 'resolvePlanReference',
    args: (i, own) => ({ planId: own.planId, stepId: i.stepId }),
    code: STEP_NOT_FOUND,
  },
];
