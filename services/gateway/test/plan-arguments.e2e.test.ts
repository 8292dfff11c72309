import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { toolCatalogue } from '@quarry/contracts';
import { type Kysely, sql } from 'kysely';
import { connectClient, startTestGateway } from './harness.js';
import { type CallTool, expectToolError, stepsOf, toolsOf } from './plan-workflow-helpers.js';

// Issue 3: every plan tool answers bad arguments with a tool error (isError, code
// INVALID_ARGUMENT or a more precise one) whose message names the field and the rule broken,
// so a model can correct its call. Nothing is changed by a refused call.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let admin: Kysely<unknown>;
let client: Client;
let call: CallTool;
let ok: CallTool;

beforeAll(async () => {
  gateway = await startTestGateway();
  admin = gateway.database.admin as Kysely<unknown>;
  client = await connectClient(gateway.url, gateway.token, 'modern');
  ({ call, ok } = toolsOf(client));
});
afterAll(async () => {
  await client?.close();
  await gateway?.close();
});

const id = '00000000-0000-4000-8000-000000000000';
const plan = { name: 'Arguments', researchQuestion: 'Are bad arguments refused?', steps: stepsOf('search', 'analyze') };

// [tool, the field, the rule, arguments] — checked by the gateway against the tool's input schema.
const schemaCases: [string, string, RegExp, Record<string, unknown>][] = [
  ['create_research_plan', 'steps', /is required/, { name: 'n', researchQuestion: 'q' }],
  ['create_research_plan', 'steps', /must NOT have fewer than 1 items/, { ...plan, steps: [] }],
  [
    'create_research_plan',
    'steps[0].stepType',
    /must be one of "search", "extract"/,
    { ...plan, steps: [{ stepType: 'dance', instructions: 'x' }] },
  ],
  ['create_research_plan', 'name', /must NOT have more than 200 characters/, { ...plan, name: 'x'.repeat(201) }],
  [
    'create_research_plan',
    'branchingConditions[0].afterStepOrder',
    /must be >= 1/,
    {
      ...plan,
      branchingConditions: [{ afterStepOrder: 0, conditionExpression: 'confidence < 1', ifTrueAction: 'fail' }],
    },
  ],
  [
    'create_research_plan',
    'branchingConditions[0].ifTrueAction',
    /must be one of "skip_to", "fail", "continue"/,
    {
      ...plan,
      branchingConditions: [{ afterStepOrder: 1, conditionExpression: 'confidence < 1', ifTrueAction: 'jump' }],
    },
  ],
  ['get_plan_status', 'planId', /must match format "uuid"/, { planId: 'plan-1' }],
  ['get_plan_status', 'waitSeconds', /must be <= 60/, { planId: id, waitSeconds: 61 }],
  ['get_plan_status', 'waitSeconds', /must be integer/, { planId: id, waitSeconds: 1.5 }],
  ['modify_plan', 'action', /must be one of "add_steps", "remove_step"/, { planId: id, action: 'explode' }],
  [
    'modify_plan',
    'steps[0].insertAfterOrder',
    /must be >= 0/,
    { planId: id, action: 'add_steps', steps: [{ stepType: 'search', instructions: 'x', insertAfterOrder: -1 }] },
  ],
  [
    'modify_plan',
    'stepOrder[0]',
    /must match format "uuid"/,
    { planId: id, action: 'reorder_steps', stepOrder: ['a'] },
  ],
  ['list_active_plans', 'limit', /must be >= 1/, { limit: 0 }],
  ['list_active_plans', 'cursor', /must NOT have fewer than 1 characters/, { cursor: '' }],
  ['get_next_step', 'planId', /is required/, {}],
  ['get_next_step', 'worker', /is not a known field/, { planId: id, worker: 'w1' }],
  ['submit_step_result', 'result', /is required/, { planId: id, stepId: id }],
  ['submit_step_result', 'result', /must be object/, { planId: id, stepId: id, result: 'it worked' }],
  ['submit_step_result', 'confidence', /must be <= 1/, { planId: id, stepId: id, result: {}, confidence: 1.5 }],
  [
    'submit_step_result',
    'idempotencyKey',
    /must NOT have more than 200 characters/,
    { planId: id, stepId: id, result: {}, idempotencyKey: 'k'.repeat(201) },
  ],
  [
    'get_step_context',
    'priorStepIds[0]',
    /must match format "uuid"/,
    { planId: id, stepId: id, priorStepIds: ['step-1'] },
  ],
  ['request_user_review', 'summary', /must NOT have fewer than 1 characters/, { planId: id, stepId: id, summary: '' }],
  [
    'request_user_review',
    'questions',
    /must NOT have more than 20 items/,
    { planId: id, stepId: id, summary: 's', questions: Array(21).fill('q?') },
  ],
  [
    'submit_user_decision',
    'decision',
    /must be one of "approve", "reject", "modify", "skip"/,
    { planId: id, stepId: id, decision: 'maybe' },
  ],
  ['get_research_context', 'sessionId', /must NOT have fewer than 1 characters/, { planId: id, sessionId: '' }],
  ['log_skill_execution', 'skillName', /must match pattern/, { skillName: 'research-wide', status: 'started' }],
  [
    'log_skill_execution',
    'status',
    /must be one of "started", "executing", "completed", "failed"/,
    { skillName: 'research', status: 'paused' },
  ],
  [
    'log_skill_execution',
    'metadata',
    /must be object/,
    { skillName: 'research', status: 'started', metadata: ['not', 'an', 'object'] },
  ],
  [
    'submit_research_feedback',
    'feedbackType',
    /must be one of "initial", "closing"/,
    { planId: id, feedbackType: 'midway' },
  ],
  [
    'submit_research_feedback',
    'userSatisfaction',
    /must be >= 1/,
    { planId: id, feedbackType: 'closing', userSatisfaction: 0 },
  ],
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('arguments that break the input schema', () => {
  it('cover every plan tool', async () => {
    const { tools } = await client.listTools();
    const planTools = toolCatalogue.filter((t) => t.rpc.service === 'quarry.plan.v1.PlanService').map((t) => t.name);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(planTools));
    expect(planTools).toHaveLength(12);
    expect(new Set(schemaCases.map(([tool]) => tool))).toEqual(new Set(planTools));
  });

  it.each(schemaCases)('%s: `%s` %s', async (tool, field, rule, args) => {
    const answer = await call(tool, args);
    expectToolError(answer, 'INVALID_ARGUMENT', new RegExp(`${escape(field)}: ${rule.source}`));
  });
});

describe('arguments the plan engine refuses', () => {
  async function plans(): Promise<number> {
    const { rows } = await sql<{ n: string }>`select count(*) as n from plan.research_plans`.execute(admin);
    return Number(rows[0]!.n);
  }

  it('rejects a plan whose branching conditions do not parse or point nowhere, creating nothing', async () => {
    const before = await plans();
    const condition = (c: Record<string, unknown>) =>
      call('create_research_plan', {
        ...plan,
        branchingConditions: [{ afterStepOrder: 1, ifTrueAction: 'fail', ...c }],
      });
    expectToolError(
      await condition({ conditionExpression: 'confidence < ' }),
      'EXPRESSION_SYNTAX',
      /branchingConditions\[0\]\.conditionExpression: /,
      /at column 14/,
    );
    expectToolError(
      await condition({ conditionExpression: 'confidence <> 1' }),
      'EXPRESSION_SYNTAX',
      /conditionExpression/,
      /column/,
    );
    expectToolError(
      await condition({ conditionExpression: 'result.__proto__.polluted == true' }),
      'EXPRESSION_FORBIDDEN_PATH',
      /conditionExpression/,
    );
    expectToolError(
      await condition({ conditionExpression: 'sources > 1' }),
      'EXPRESSION_SYNTAX',
      /conditionExpression/,
      /column 1/,
    );
    expectToolError(
      await condition({ afterStepOrder: 9, conditionExpression: 'confidence < 0.5' }),
      'INVALID_CONDITION',
      /branchingConditions\[0\]\.afterStepOrder is 9; the plan has steps 1 to 2/,
    );
    expectToolError(
      await condition({ ifTrueAction: 'skip_to', conditionExpression: 'confidence < 0.5' }),
      'INVALID_CONDITION',
      /branchingConditions\[0\]\.actionParams\.targetStepOrder is required for skip_to/,
    );
    expectToolError(
      await condition({
        afterStepOrder: 2,
        ifTrueAction: 'skip_to',
        actionParams: { targetStepOrder: 1 },
        conditionExpression: 'confidence < 0.5',
      }),
      'INVALID_CONDITION',
      /targetStepOrder is 1; a skip_to target must come after step 2/,
    );
    expectToolError(
      await call('create_research_plan', { ...plan, steps: [{ stepType: 'search', instructions: '   ' }] }),
      'INVALID_ARGUMENT',
      /steps\[0\]\.instructions must not be empty/,
    );
    expect(await plans()).toBe(before);
  });

  it('names the field of a rule only the plan can check', async () => {
    const { planId } = (await ok('create_research_plan', plan)).data;
    const step = (await ok('get_next_step', { planId })).data.step.stepId;
    expectToolError(
      await call('modify_plan', {
        planId,
        action: 'update_step_instructions',
        stepId: step,
        updatedInstructions: '  ',
      }),
      'INVALID_ARGUMENT',
      /updatedInstructions must not be empty/,
    );
    expectToolError(
      await call('request_user_review', { planId, stepId: step, summary: ' ' }),
      'INVALID_ARGUMENT',
      /summary must not be empty/,
    );
    expectToolError(
      await call('submit_step_result', { planId, stepId: id, result: {} }),
      'STEP_NOT_FOUND',
      new RegExp(id),
    );
    expect((await ok('get_plan_status', { planId })).data.currentStep).toMatchObject({
      stepId: step,
      status: 'in_progress',
      instructions: 'Step 1: search',
    });
  });

  it('answers a plan id that does not exist with not-found on every tool that takes one', async () => {
    const byTool: [string, Record<string, unknown>][] = [
      ['get_plan_status', { planId: id }],
      ['modify_plan', { planId: id, action: 'fail_step', stepId: id }],
      ['get_next_step', { planId: id }],
      ['submit_step_result', { planId: id, stepId: id, result: {} }],
      ['get_step_context', { planId: id, stepId: id }],
      ['request_user_review', { planId: id, stepId: id, summary: 's' }],
      ['submit_user_decision', { planId: id, stepId: id, decision: 'approve' }],
      ['get_research_context', { planId: id }],
      ['log_skill_execution', { skillName: 'research', status: 'started', planId: id }],
      ['submit_research_feedback', { planId: id, feedbackType: 'initial' }],
    ];
    for (const [tool, args] of byTool)
      expectToolError(await call(tool, args), 'PLAN_NOT_FOUND', new RegExp(`No research plan with id ${id}`));
  });
});
