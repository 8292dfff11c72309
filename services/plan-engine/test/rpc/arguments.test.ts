import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import {
  BranchAction,
  expectRefusal,
  FeedbackType,
  MISSING,
  ModifyPlanAction,
  type Method,
  type PlanCaller,
  type Request,
  ReviewDecision,
  SkillExecutionStatus,
  StepStatus,
  StepType,
  stepsOf,
} from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';

// Arguments the plan engine itself refuses: rules only the plan can check (conditions that do
// not parse or point nowhere, blank text, steps of another plan), the fields it needs whatever
// the caller (the gateway's tool codec checks the proto's field rules before it is called), and
// plan ids that do not exist. Each refusal names the field and the rule, and changes nothing.

let engine: TestPlanEngine;
let api: PlanCaller;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  api = engine.newOrg();
});
afterAll(async () => {
  await engine?.close();
});

type Condition = NonNullable<Request<'createResearchPlan'>['branchingConditions']>[number];

const plan: Request<'createResearchPlan'> = {
  name: 'Arguments',
  researchQuestion: 'Are bad arguments refused?',
  steps: stepsOf('search', 'analyze'),
};

async function plans(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from plan.research_plans`.execute(
    engine.database.admin,
  );
  return Number(rows[0]!.n);
}

describe('arguments the plan engine refuses', () => {
  it('rejects a plan whose branching conditions do not parse or point nowhere, creating nothing', async () => {
    const before = await plans();
    const condition = (c: Partial<Condition>) =>
      api.refusal('createResearchPlan', {
        ...plan,
        branchingConditions: [{ afterStepOrder: 1, ifTrueAction: BranchAction.BRANCH_ACTION_FAIL, ...c }],
      });
    expectRefusal(
      await condition({ conditionExpression: 'confidence < ' }),
      'EXPRESSION_SYNTAX',
      /branchingConditions\[0\]\.conditionExpression: /,
      /at column 14/,
    );
    expectRefusal(
      await condition({ conditionExpression: 'confidence <> 1' }),
      'EXPRESSION_SYNTAX',
      /conditionExpression/,
      /column/,
    );
    expectRefusal(
      await condition({ conditionExpression: 'result.__proto__.polluted == true' }),
      'EXPRESSION_FORBIDDEN_PATH',
      /conditionExpression/,
    );
    expectRefusal(
      await condition({ conditionExpression: 'sources > 1' }),
      'EXPRESSION_SYNTAX',
      /conditionExpression/,
      /column 1/,
    );
    expectRefusal(
      await condition({ afterStepOrder: 9, conditionExpression: 'confidence < 0.5' }),
      'INVALID_CONDITION',
      /branchingConditions\[0\]\.afterStepOrder is 9; the plan has steps 1 to 2/,
    );
    expectRefusal(
      await condition({ ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO, conditionExpression: 'confidence < 0.5' }),
      'INVALID_CONDITION',
      /branchingConditions\[0\]\.actionParams\.targetStepOrder is required for skip_to/,
    );
    expectRefusal(
      await condition({
        afterStepOrder: 2,
        ifTrueAction: BranchAction.BRANCH_ACTION_SKIP_TO,
        actionParams: { targetStepOrder: 1 },
        conditionExpression: 'confidence < 0.5',
      }),
      'INVALID_CONDITION',
      /targetStepOrder is 1; a skip_to target must come after step 2/,
    );
    expectRefusal(
      await api.refusal('createResearchPlan', {
        ...plan,
        steps: [{ stepType: StepType.STEP_TYPE_SEARCH, instructions: '   ' }],
      }),
      'INVALID_ARGUMENT',
      /steps\[0\]\.instructions must not be empty/,
    );
    expect(await plans()).toBe(before);
  });

  it('names the field of a rule only the plan can check', async () => {
    const { planId } = await api.call('createResearchPlan', plan);
    const step = (await api.call('getNextStep', { planId })).step!.stepId;
    expectRefusal(
      await api.refusal('modifyPlan', {
        planId,
        action: ModifyPlanAction.MODIFY_PLAN_ACTION_UPDATE_STEP_INSTRUCTIONS,
        stepId: step,
        updatedInstructions: '  ',
      }),
      'INVALID_ARGUMENT',
      /updatedInstructions must not be empty/,
    );
    expectRefusal(
      await api.refusal('requestUserReview', { planId, stepId: step, summary: ' ' }),
      'INVALID_ARGUMENT',
      /summary must not be empty/,
    );
    expectRefusal(
      await api.refusal('submitStepResult', { planId, stepId: MISSING, result: {} }),
      'STEP_NOT_FOUND',
      new RegExp(MISSING),
    );
    expectRefusal(
      await api.refusal('submitStepResult', { planId, stepId: step, result: {}, confidence: 1.5 }),
      'INVALID_ARGUMENT',
      /confidence must be a number between 0 and 1, got 1.5/,
    );
    expect((await api.call('getPlanStatus', { planId })).currentStep).toMatchObject({
      stepId: step,
      status: StepStatus.STEP_STATUS_IN_PROGRESS,
      instructions: 'Step 1: search',
    });
  });

  it('refuses a request without the fields it needs, naming the field', async () => {
    const before = await plans();
    const { planId } = await api.call('createResearchPlan', plan);
    const step = (await api.call('getNextStep', { planId })).step!.stepId;
    const cases: [Method, Request<Method>, RegExp][] = [
      ['createResearchPlan', { ...plan, steps: [] }, /`steps` must contain at least one step/],
      ['createResearchPlan', { ...plan, steps: [{ instructions: 'No type' }] }, /`stepType` is required/],
      [
        'createResearchPlan',
        { ...plan, branchingConditions: [{ afterStepOrder: 1, conditionExpression: 'confidence < 1' }] },
        /`ifTrueAction` is required/,
      ],
      ['submitStepResult', { planId, stepId: step }, /`result` is required \(a JSON object\)/],
      ['submitUserDecision', { planId, stepId: step }, /`decision` is required/],
      ['modifyPlan', { planId, stepId: step }, /`action` is required/],
      [
        'modifyPlan',
        { planId, action: ModifyPlanAction.MODIFY_PLAN_ACTION_ADD_STEPS, steps: [{ instructions: 'No type' }] },
        /`stepType` is required/,
      ],
      ['logSkillExecution', { skillName: 'research' }, /`status` is required/],
      ['submitResearchFeedback', { planId }, /`feedbackType` is required/],
    ];
    for (const [method, request, message] of cases) {
      expectRefusal(await api.refusal(method, request), 'INVALID_ARGUMENT', message);
    }
    expect(await plans()).toBe(before + 1);
    expect((await api.call('getPlanStatus', { planId })).currentStep).toMatchObject({ stepId: step });
  });

  it('answers a plan id that does not exist with not-found on every rpc that takes one', async () => {
    const byRpc: [Method, Request<Method>][] = [
      ['getPlanStatus', { planId: MISSING }],
      ['modifyPlan', { planId: MISSING, action: ModifyPlanAction.MODIFY_PLAN_ACTION_FAIL_STEP, stepId: MISSING }],
      ['getNextStep', { planId: MISSING }],
      ['submitStepResult', { planId: MISSING, stepId: MISSING, result: {} }],
      ['getStepContext', { planId: MISSING, stepId: MISSING }],
      ['requestUserReview', { planId: MISSING, stepId: MISSING, summary: 's' }],
      ['submitUserDecision', { planId: MISSING, stepId: MISSING, decision: ReviewDecision.REVIEW_DECISION_APPROVE }],
      ['getResearchContext', { planId: MISSING }],
      [
        'logSkillExecution',
        { skillName: 'research', status: SkillExecutionStatus.SKILL_EXECUTION_STATUS_STARTED, planId: MISSING },
      ],
      ['submitResearchFeedback', { planId: MISSING, feedbackType: FeedbackType.FEEDBACK_TYPE_INITIAL }],
      ['resolvePlanReference', { planId: MISSING }],
    ];
    for (const [method, request] of byRpc) {
      expectRefusal(
        await api.refusal(method, request),
        'PLAN_NOT_FOUND',
        new RegExp(`No research plan with id ${MISSING}`),
      );
    }
  });
});
