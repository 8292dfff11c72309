import { describe, expect, it } from '@jest/globals';
import type { JsonSchema } from '@quarry/contracts';
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
        'archived',
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
        'review',
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
      ['reviewId', 'stepStatus', 'planStatus', 'userAnswer'],
    ],
    [
      'submit_user_decision',
      ['planId', 'stepId', 'decision', 'feedback', 'sessionId', 'reviewId'],
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
      enum: ['planning', 'executing', 'awaiting_review', 'stalled', 'completed', 'failed', 'cancelled'],
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
});
