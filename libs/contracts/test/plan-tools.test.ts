import { describe, expect, it } from '@jest/globals';
import { ContractError, createToolCodec, planV1, type JsonSchema } from '@quarry/contracts';
import { properties, required, tool } from './support/tools.js';

// The plan engine's tools as MCP clients see them: names, argument and result fields
// in camelCase exactly as the tool catalogue documents them, what is required, the constraints a model is
// held to, and the wire format the plan engine will speak.

const keys = (schema: JsonSchema): string[] => Object.keys(properties(schema));
const property = (name: string, path: string): Record<string, unknown> => {
  let schema: JsonSchema = tool(name).inputSchema;
  for (const part of path.split('.')) {
    schema = part === '[]' ? (schema as { items: JsonSchema }).items : properties(schema)[part]!;
  }
  return schema as Record<string, unknown>;
};

const PLAN_ID = '0b6d1c9e-6f1a-4f5e-9a51-2f8e0a4b7c10';
const STEP_ID = '5a0f3c2e-8d41-4b7a-a0c9-3e6f1d2b9a84';

describe('the plan tools', () => {
  // [tool, input fields, required input fields, output fields]
  const contract: [string, string[], string[], string[]][] = [
    [
      'create_research_plan',
      [
        'name',
        'researchQuestion',
        'steps',
        'branchingConditions',
        'sessionId',
        'planDesignRationale',
        'outputFormattingNotes',
      ],
      ['name', 'researchQuestion', 'steps'],
      ['planId', 'name', 'researchQuestion', 'stepCount', 'firstStep'],
    ],
    [
      'get_plan_status',
      ['planId', 'waitSeconds'],
      ['planId'],
      [
        'planId',
        'name',
        'status',
        'derivedStatus',
        'stalled',
        'progress',
        'totalSteps',
        'currentStep',
        'completedSteps',
        'pendingSteps',
      ],
    ],
    [
      'modify_plan',
      [
        'planId',
        'action',
        'steps',
        'stepId',
        'stepOrder',
        'updatedInstructions',
        'reason',
        'modificationRationale',
        'sessionId',
      ],
      ['planId', 'action'],
      ['planId', 'action', 'planStatus', 'steps'],
    ],
    ['list_active_plans', ['cursor', 'limit'], [], ['activePlans', 'plans', 'nextCursor']],
    [
      'get_next_step',
      ['planId', 'sessionId'],
      ['planId'],
      [
        'status',
        'step',
        'outputMediaType',
        'outputFormattingInstructions',
        'planFormattingNotes',
        'stepFormattingNotes',
      ],
    ],
    [
      'submit_step_result',
      [
        'planId',
        'stepId',
        'result',
        'confidence',
        'stepExecutionReport',
        'outputFormattingNotes',
        'sessionId',
        'idempotencyKey',
      ],
      ['planId', 'stepId', 'result'],
      ['submitted', 'planStatus'],
    ],
    [
      'get_step_context',
      ['planId', 'stepId', 'priorStepIds'],
      ['planId', 'stepId'],
      ['currentStep', 'priorSteps', 'artifacts'],
    ],
    [
      'request_user_review',
      ['planId', 'stepId', 'summary', 'questions', 'sessionId'],
      ['planId', 'stepId', 'summary'],
      ['reviewId', 'stepStatus', 'planStatus'],
    ],
    [
      'submit_user_decision',
      ['planId', 'stepId', 'decision', 'feedback', 'sessionId'],
      ['planId', 'stepId', 'decision'],
      ['reviewId', 'decision', 'stepStatus', 'planStatus'],
    ],
    [
      'get_research_context',
      ['planId', 'sessionId'],
      ['planId'],
      ['plan', 'steps', 'artifacts', 'recentAuditEvents', 'skillExecution', 'outputPreferences'],
    ],
    [
      'log_skill_execution',
      ['executionId', 'skillName', 'status', 'planId', 'metadata', 'errorMessage', 'sessionId'],
      ['skillName', 'status'],
      ['executionId', 'skillName', 'status', 'stored'],
    ],
    [
      'submit_research_feedback',
      [
        'planId',
        'feedbackType',
        'userSatisfaction',
        'userFeedbackSummary',
        'improvementSuggestions',
        'followUpRequested',
        'followUpDetails',
        'sessionId',
      ],
      ['planId', 'feedbackType'],
      ['feedbackId', 'feedbackType', 'stored'],
    ],
  ];

  it.each(contract)('%s takes and returns exactly the documented fields', (name, inputs, requiredInputs, outputs) => {
    const t = tool(name);
    expect(t.rpc.service).toBe('quarry.plan.v1.PlanService');
    expect(keys(t.inputSchema)).toEqual(inputs);
    expect(required(t.inputSchema)).toEqual(requiredInputs);
    expect(keys(t.outputSchema)).toEqual(outputs);
  });

  it('describes every plan tool and every property of its input and output, at every depth', () => {
    const undescribed: string[] = [];
    const walk = (schema: JsonSchema, path: string) => {
      const s = schema as { properties?: Record<string, JsonSchema>; items?: JsonSchema };
      for (const [key, child] of Object.entries(s.properties ?? {})) {
        if (!(child as { description?: string }).description) undescribed.push(`${path}.${key}`);
        walk(child, `${path}.${key}`);
      }
      if (s.items) walk(s.items, `${path}[]`);
    };
    for (const [name] of contract) {
      expect(tool(name).description.length).toBeGreaterThan(80);
      walk(tool(name).inputSchema, `${name}.input`);
      walk(tool(name).outputSchema, `${name}.output`);
    }
    expect(undescribed).toEqual([]);
  });

  it('requires UUIDs for every plan, step and execution ID an argument carries', () => {
    const ids: [string, string][] = [
      ['get_plan_status', 'planId'],
      ['modify_plan', 'planId'],
      ['modify_plan', 'stepId'],
      ['modify_plan', 'stepOrder.[]'],
      ['get_next_step', 'planId'],
      ['submit_step_result', 'planId'],
      ['submit_step_result', 'stepId'],
      ['get_step_context', 'planId'],
      ['get_step_context', 'stepId'],
      ['get_step_context', 'priorStepIds.[]'],
      ['request_user_review', 'planId'],
      ['request_user_review', 'stepId'],
      ['submit_user_decision', 'planId'],
      ['submit_user_decision', 'stepId'],
      ['get_research_context', 'planId'],
      ['log_skill_execution', 'executionId'],
      ['log_skill_execution', 'planId'],
      ['submit_research_feedback', 'planId'],
    ];
    for (const [name, path] of ids)
      expect({ name, path, format: property(name, path).format }).toEqual({ name, path, format: 'uuid' });
  });

  it('offers the states, types, actions and decisions as short lowercase names', () => {
    expect(property('create_research_plan', 'steps.[].stepType').enum).toEqual([
      'search',
      'extract',
      'analyze',
      'critique',
      'synthesize',
      'checkpoint',
      'custom',
    ]);
    expect(property('create_research_plan', 'branchingConditions.[].ifTrueAction').enum).toEqual([
      'skip_to',
      'fail',
      'continue',
    ]);
    expect(property('modify_plan', 'action').enum).toEqual([
      'add_steps',
      'remove_step',
      'reorder_steps',
      'update_step_instructions',
      'fail_step',
    ]);
    expect(property('submit_user_decision', 'decision').enum).toEqual(['approve', 'reject', 'modify', 'skip']);
    expect(property('log_skill_execution', 'status').enum).toEqual(['started', 'executing', 'completed', 'failed']);
    expect(property('submit_research_feedback', 'feedbackType').enum).toEqual(['initial', 'closing']);
    const status = tool('get_plan_status').outputSchema;
    expect(properties(status).status).toMatchObject({
      enum: ['planning', 'executing', 'awaiting_review', 'stalled', 'completed', 'failed'],
    });
    const stepStatus = properties(properties(status).currentStep as JsonSchema).status;
    expect(stepStatus).toMatchObject({
      enum: ['pending', 'in_progress', 'awaiting_input', 'completed', 'skipped', 'failed'],
    });
    const next = properties(tool('get_next_step').outputSchema);
    expect(next.status).toMatchObject({
      enum: ['next_step', 'plan_complete', 'plan_failed', 'awaiting_review', 'no_pending_steps'],
    });
    expect(next.outputMediaType).toMatchObject({
      enum: ['conversation', 'markdown', 'html', 'word', 'excel', 'powerpoint'],
    });
    const events = properties(tool('get_research_context').outputSchema).recentAuditEvents as { items: JsonSchema };
    expect(properties(events.items).eventType).toMatchObject({
      enum: [
        'plan_modified',
        'step_started',
        'step_completed',
        'step_failed',
        'plan_status_changed',
        'user_reviewed',
        'session_resumed',
        'feedback_recorded',
      ],
    });
  });

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
        { planId: PLAN_ID, feedbackType: 'closing', userSatisfaction: 5, followUpRequested: false },
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
        { planId: PLAN_ID, feedbackType: 'initial', userSatisfaction: 6 },
        'userSatisfaction: must be <= 5',
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

  describe('speaks the same wire format as the generated plan engine code', () => {
    it('carries a step result (a JSON object) and the optional fields to the service', () => {
      const codec = createToolCodec(tool('submit_step_result'));
      const bytes = codec.encodeRequest({
        planId: PLAN_ID,
        stepId: STEP_ID,
        result: { sources: { count: 5, urls: ['https://example.org'] }, summary: 'ok', verified: true, missing: null },
        confidence: 0.8,
        idempotencyKey: 'k-1',
      });
      expect(planV1.SubmitStepResultRequest.decode(bytes)).toEqual({
        planId: PLAN_ID,
        stepId: STEP_ID,
        result: { sources: { count: 5, urls: ['https://example.org'] }, summary: 'ok', verified: true, missing: null },
        confidence: 0.8,
        idempotencyKey: 'k-1',
      });
    });

    it('maps enums both ways: create_research_plan steps in, get_next_step status and step out', () => {
      const request = planV1.CreateResearchPlanRequest.decode(
        createToolCodec(tool('create_research_plan')).encodeRequest({
          name: 'n',
          researchQuestion: 'q',
          steps: [
            { stepType: 'search', instructions: 'find' },
            { stepType: 'synthesize', instructions: 'write' },
          ],
          branchingConditions: [
            {
              afterStepOrder: 1,
              conditionExpression: 'confidence > 0.9',
              ifTrueAction: 'skip_to',
              actionParams: { targetStepOrder: 2 },
            },
          ],
        }),
      );
      expect(request.steps.map((s) => s.stepType)).toEqual([
        planV1.StepType.STEP_TYPE_SEARCH,
        planV1.StepType.STEP_TYPE_SYNTHESIZE,
      ]);
      expect(request.branchingConditions[0]).toEqual({
        afterStepOrder: 1,
        conditionExpression: 'confidence > 0.9',
        ifTrueAction: planV1.BranchAction.BRANCH_ACTION_SKIP_TO,
        actionParams: { targetStepOrder: 2 },
      });

      const codec = createToolCodec(tool('get_next_step'));
      const next = planV1.GetNextStepResponse.encode({
        status: planV1.NextStepStatus.NEXT_STEP_STATUS_NEXT_STEP,
        step: { stepId: STEP_ID, stepOrder: 1, stepType: planV1.StepType.STEP_TYPE_SEARCH, instructions: 'find' },
        outputMediaType: planV1.OutputMediaType.OUTPUT_MEDIA_TYPE_UNSPECIFIED,
        stepFormattingNotes: [],
      }).finish();
      expect(codec.decodeResponse(next)).toEqual({
        status: 'next_step',
        step: { stepId: STEP_ID, stepOrder: 1, stepType: 'search', instructions: 'find' },
        stepFormattingNotes: [],
      });

      const complete = planV1.GetNextStepResponse.encode({
        status: planV1.NextStepStatus.NEXT_STEP_STATUS_PLAN_COMPLETE,
        outputMediaType: planV1.OutputMediaType.OUTPUT_MEDIA_TYPE_MARKDOWN,
        planFormattingNotes: 'tables first',
        stepFormattingNotes: [{ stepId: STEP_ID, stepOrder: 2, notes: 'cite sources inline' }],
      }).finish();
      expect(codec.decodeResponse(complete)).toEqual({
        status: 'plan_complete',
        outputMediaType: 'markdown',
        planFormattingNotes: 'tables first',
        stepFormattingNotes: [{ stepId: STEP_ID, stepOrder: 2, notes: 'cite sources inline' }],
      });
    });

    it('returns timestamps, 64-bit counters and free-form details in a form the output schema accepts', () => {
      const codec = createToolCodec(tool('get_research_context'));
      const result = codec.decodeResponse(
        planV1.GetResearchContextResponse.encode({
          plan: {
            planId: PLAN_ID,
            name: 'n',
            researchQuestion: 'q',
            status: planV1.PlanStatus.PLAN_STATUS_EXECUTING,
            progress: 50,
            totalSteps: 2,
            createdAt: new Date('2026-01-02T03:04:05.000Z'),
            updatedAt: new Date('2026-01-02T03:04:06.000Z'),
          },
          steps: [],
          artifacts: [],
          recentAuditEvents: [
            {
              eventId: 42,
              eventType: planV1.AuditEventType.AUDIT_EVENT_TYPE_STEP_STARTED,
              stepId: STEP_ID,
              details: { from: 'pending', to: 'in_progress' },
              occurredAt: new Date('2026-01-02T03:04:06.000Z'),
            },
          ],
          outputPreferences: { outputMediaType: planV1.OutputMediaType.OUTPUT_MEDIA_TYPE_WORD },
        }).finish(),
      );
      expect(result.recentAuditEvents).toEqual([
        {
          eventId: 42,
          eventType: 'step_started',
          stepId: STEP_ID,
          details: { from: 'pending', to: 'in_progress' },
          occurredAt: '2026-01-02T03:04:06Z',
        },
      ]);
      expect(result.plan).toMatchObject({ status: 'executing', progress: 50, createdAt: '2026-01-02T03:04:05Z' });
      expect(result.outputPreferences).toEqual({ outputMediaType: 'word' });
      expect(result).not.toHaveProperty('skillExecution');
    });
  });
});
