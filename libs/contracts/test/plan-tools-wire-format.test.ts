import { describe, expect, it } from '@jest/globals';
import { createToolCodec, planV1 } from '@quarry/contracts';
import { tool } from './support/tools.js';
import { PLAN_ID, STEP_ID } from './support/plan-ids.js';

// The plan tools' codecs against the generated plan engine code (the fields themselves are in
// plan-tools.test.ts).

describe('the plan tools', () => {
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
            id: PLAN_ID,
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
              eventData: { from: 'pending', to: 'in_progress' },
              createdAt: new Date('2026-01-02T03:04:06.000Z'),
            },
          ],
          outputPreferences: {
            outputMediaType: planV1.OutputMediaType.OUTPUT_MEDIA_TYPE_WORD,
            stepFormattingNotes: [],
          },
        }).finish(),
      );
      expect(result.recentAuditEvents).toEqual([
        {
          eventId: 42,
          eventType: 'step_started',
          stepId: STEP_ID,
          eventData: { from: 'pending', to: 'in_progress' },
          createdAt: '2026-01-02T03:04:06Z',
        },
      ]);
      expect(result.plan).toMatchObject({ status: 'executing', progress: 50, createdAt: '2026-01-02T03:04:05Z' });
      expect(result.outputPreferences).toEqual({ outputMediaType: 'word', stepFormattingNotes: [] });
      expect(result).not.toHaveProperty('skillExecution');
    });
  });
});
