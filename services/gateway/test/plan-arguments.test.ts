import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { toolCatalogue } from '@quarry/contracts';
import type { FastifyInstance } from 'fastify';
import { injectPost, modernRequest, modernToolCall } from './mcp-requests.js';
import { ADA_TOKEN, bearer, buildStubServer, stubTools } from './stub-deps.js';
import { expectToolError, type ToolAnswer } from './tool-answers.js';

// The gateway's tool codec checks every plan tool's arguments against the tool's input schema
// (the proto's field rules) before the plan engine is called: bad arguments become a tool error
// (isError, code INVALID_ARGUMENT) whose message names the field and the rule broken, so a model
// can correct its call. What the plan engine itself refuses is tested at its own gRPC boundary
// (services/plan-engine/test/rpc). Here the plan engine is a stub that answers nothing: any rpc
// that reached it would be recorded.

const tools = stubTools();
let app: FastifyInstance;

beforeAll(async () => {
  ({ app } = await buildStubServer({ tools }));
});
afterAll(async () => {
  await app?.close();
});

/** A 2026-07-28 request as a client sends it, with Ada's token. */
async function send(request: ReturnType<typeof modernRequest>) {
  const answer = await injectPost(app, JSON.stringify(request.body), { ...request.headers, ...bearer(ADA_TOKEN) });
  expect(answer.status).toBe(200);
  return answer.json.result;
}

async function call(tool: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const result = await send(modernToolCall(tool, args));
  return { isError: Boolean(result.isError), data: result.structuredContent ?? {} };
}

const id = '00000000-0000-4000-8000-000000000000';
const plan = {
  name: 'Arguments',
  researchQuestion: 'Are bad arguments refused?',
  steps: [
    { stepType: 'search', instructions: 'Step 1: search' },
    { stepType: 'analyze', instructions: 'Step 2: analyze' },
  ],
};

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
  ['delete_plan', 'planId', /must match format "uuid"/, { planId: 'plan-1' }],
  ['delete_plan', 'planId', /is required/, {}],
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
  [
    'modify_plan',
    'stepOrder',
    /must NOT have duplicate items/,
    { planId: id, action: 'reorder_steps', stepOrder: [id, id] },
  ],
  ['list_active_plans', 'limit', /must be >= 1/, { limit: 0 }],
  ['list_active_plans', 'limit', /must be <= 100/, { limit: 101 }],
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
  ['list_plans', 'status', /must be one of "planning"/, { status: 'paused' }],
  ['list_plans', 'updatedSince', /must match format "date-time"/, { updatedSince: 'yesterday' }],
  ['archive_plan', 'planId', /must match format "uuid"/, { planId: 'plan-1' }],
  ['unarchive_plan', 'planId', /is required/, {}],
  ['cancel_plan', 'reason', /is required/, { planId: id }],
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
    /must be one of "positive", "neutral", "negative", "none"/,
    { planId: id, feedbackType: 'closing', userSatisfaction: 'great' },
  ],
  [
    'submit_research_feedback',
    'userSatisfaction',
    /must be one of "positive", "neutral", "negative", "none"/,
    { planId: id, feedbackType: 'closing', userSatisfaction: 5 },
  ],
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('arguments that break the input schema', () => {
  it('cover every plan tool', async () => {
    const listed = (await send(modernRequest('tools/list'))).tools as Array<{ name: string }>;
    const planTools = toolCatalogue.filter((t) => t.rpc.service === 'quarry.plan.v1.PlanService').map((t) => t.name);
    expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(planTools));
    expect(planTools).toHaveLength(17);
    expect(new Set(schemaCases.map(([tool]) => tool))).toEqual(new Set(planTools));
  });

  it.each(schemaCases)('%s: `%s` %s', async (tool, field, rule, args) => {
    const answer = await call(tool, args);
    expectToolError(answer, 'INVALID_ARGUMENT', new RegExp(`${escape(field)}: ${rule.source}`));
  });

  it('refused every one of them before the plan engine was called: no rpc reached it', () => {
    expect(tools.stub.calls).toEqual([]);
  });
});
