import { describe, expect, it } from '@jest/globals';
import { ContractError, createToolCodec } from '@quarry/contracts';
import { tool } from './support/tools.js';
import { PLAN_ID, STEP_ID } from './support/plan-ids.js';

// The plan tools' arguments held to the rules the catalogue documents (the fields themselves are
// in plan-tools.test.ts).

describe('the plan tools', () => {
  describe('holds arguments to their rules, naming the field', () => {
    const problem = (name: string, args: unknown): string | undefined => {
      try {
        createToolCodec(tool(name)).encodeRequest(args);
        return undefined;
      } catch (error) {
        expect(error).toBeInstanceOf(ContractError);
        return (error as Error).message;
      }
    };

    it.each([
      ['get_plan_status', { planId: PLAN_ID, waitSeconds: 0 }],
      ['get_plan_status', { planId: PLAN_ID, waitSeconds: 60 }],
      ['submit_step_result', { planId: PLAN_ID, stepId: STEP_ID, result: {}, confidence: 0 }],
      ['submit_step_result', { planId: PLAN_ID, stepId: STEP_ID, result: { sources: { count: 5 } }, confidence: 1 }],
      ['list_active_plans', {}],
      ['list_active_plans', { limit: 1, cursor: 'abc' }],
      ['list_active_plans', { limit: 100 }],
      ['log_skill_execution', { skillName: 'research', status: 'started' }],
      ['log_skill_execution', { skillName: 'research-scan', status: 'executing', metadata: { a: [1] } }],
      [
        'log_skill_execution',
        { executionId: STEP_ID, skillName: 'research-deep', status: 'failed', errorMessage: 'x' },
      ],
      [
        'submit_research_feedback',
        { planId: PLAN_ID, feedbackType: 'closing', userSatisfaction: 'positive', followUpRequested: false },
      ],
      ['modify_plan', { planId: PLAN_ID, action: 'reorder_steps', stepOrder: [STEP_ID, PLAN_ID] }],
      [
        'modify_plan',
        {
          planId: PLAN_ID,
          action: 'add_steps',
          steps: [{ stepType: 'critique', instructions: 'x', insertAfterOrder: 0 }],
        },
      ],
    ])('accepts %s %j', (name, args) => {
      expect(problem(name, args)).toBeUndefined();
    });

    it.each([
      ['get_plan_status', { planId: PLAN_ID, waitSeconds: 61 }, 'waitSeconds: must be <= 60'],
      ['get_plan_status', { planId: PLAN_ID, waitSeconds: -1 }, 'waitSeconds: must be >= 0'],
      ['get_plan_status', { planId: 'plan-1' }, 'planId: must match format "uuid"'],
      [
        'submit_step_result',
        { planId: PLAN_ID, stepId: STEP_ID, result: {}, confidence: 1.5 },
        'confidence: must be <= 1',
      ],
      ['submit_step_result', { planId: PLAN_ID, stepId: STEP_ID }, 'result: is required'],
      ['submit_step_result', { planId: PLAN_ID, stepId: STEP_ID, result: 'done' }, 'result: must be object'],
      ['list_active_plans', { limit: 0 }, 'limit: must be >= 1'],
      ['list_active_plans', { limit: 101 }, 'limit: must be <= 100'],
      ['log_skill_execution', { skillName: 'research_scan', status: 'started' }, 'skillName: must match pattern'],
      [
        'log_skill_execution',
        { skillName: 'research', status: 'done' },
        'status: must be one of "started", "executing", "completed", "failed"',
      ],
      [
        'submit_research_feedback',
        { planId: PLAN_ID, feedbackType: 'initial', userSatisfaction: 5 },
        'userSatisfaction: must be one of "positive", "neutral", "negative", "none"',
      ],
      [
        'create_research_plan',
        { name: 'n', researchQuestion: 'q', steps: [] },
        'steps: must NOT have fewer than 1 items',
      ],
      ['create_research_plan', { name: 'n', researchQuestion: 'q' }, 'steps: is required'],
      [
        'create_research_plan',
        { name: 'n', researchQuestion: 'q', steps: [{ stepType: 'browse', instructions: 'x' }] },
        'steps[0].stepType: must be one of',
      ],
      [
        'create_research_plan',
        { name: '', researchQuestion: 'q', steps: [{ stepType: 'search', instructions: 'x' }] },
        'name: must NOT have fewer than 1 characters',
      ],
      [
        'create_research_plan',
        {
          name: 'n',
          researchQuestion: 'q',
          steps: [{ stepType: 'search', instructions: 'x' }],
          branchingConditions: [
            { afterStepOrder: 1, conditionExpression: 'confidence < 0.7', ifTrueAction: 'skip_to', actionParams: {} },
          ],
        },
        'branchingConditions[0].actionParams.targetStepOrder: is required',
      ],
      [
        'modify_plan',
        { planId: PLAN_ID, action: 'reorder_steps', stepOrder: [STEP_ID, STEP_ID] },
        'stepOrder: must NOT have duplicate items',
      ],
      ['modify_plan', { planId: PLAN_ID, action: 'rename' }, 'action: must be one of'],
      [
        'submit_user_decision',
        { planId: PLAN_ID, stepId: STEP_ID, decision: 'maybe' },
        'decision: must be one of "approve", "reject", "modify", "skip"',
      ],
      [
        'get_step_context',
        { planId: PLAN_ID, stepId: STEP_ID, priorStepIds: ['step-1'] },
        'priorStepIds[0]: must match format "uuid"',
      ],
    ])('rejects %s %j', (name, args, message) => {
      expect(problem(name, args)).toContain(message);
    });
  });
});
