import { afterAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { connectClient, type Era } from './official-client.js';
import type { TestSystem } from './shared-system.js';
import { sleep, toolsOf } from './tool-answers.js';

// A client written against Trovella's tool reference, run through the whole system with the
// official MCP client SDK in both protocol eras: all 18 tools, called with the reference's own
// parameter names, enum values and shapes (userSatisfaction "positive", an object execution
// report, a subagent report…), and every answer read by the reference's field names. What each
// tool does is tested at its service's boundary; this shows the contract holds end to end.

export function trovellaSessionSuite(system: () => TestSystem): void {
  const clients: Client[] = [];
  afterAll(async () => {
    for (const client of clients) await client.close();
  });

  describe.each<Era>(['legacy', 'modern'])('a Trovella-style research session, %s protocol era', (era) => {
    it('uses all 18 tools with the reference’s enums and shapes', async () => {
      const gateway = system();
      const client = await connectClient(gateway.url, gateway.token, era);
      clients.push(client);
      const { ok, call } = toolsOf(client);
      const word = `${era}quokka`;
      const called = new Set<string>();
      const use = async (name: string, args: Record<string, unknown>) => {
        called.add(name);
        return (await ok(name, args)).data;
      };
      const session = `session-${era}`;

      expect((await use('ping', {})).message).toMatch(/Ada Lovelace \(ada@acme\.test\)/);

      const execution = await use('log_skill_execution', {
        skillName: 'research-deep',
        status: 'started',
        sessionId: session,
        metadata: { detectedType: 'comparison' },
      });
      expect(execution).toEqual({
        executionId: expect.any(String),
        skillName: 'research-deep',
        status: 'started',
        stored: true,
      });

      const plan = await use('create_research_plan', {
        name: `Batteries ${era}`,
        researchQuestion: 'How do sodium-ion and lithium-ion batteries compare on cost?',
        steps: [
          { stepType: 'search', instructions: 'Find recent cost studies.' },
          { stepType: 'checkpoint', instructions: 'Check scope with the user.' },
          { stepType: 'synthesize', instructions: 'Write the comparison.' },
        ],
        branchingConditions: [
          {
            afterStepOrder: 1,
            conditionExpression: 'confidence < 0.2',
            ifTrueAction: 'fail',
          },
        ],
        sessionId: session,
        planDesignRationale: 'Sources first, then a checkpoint.',
        outputFormattingNotes: 'A table first.',
      });
      expect(plan).toMatchObject({
        planId: expect.any(String),
        stepCount: 3,
        firstStep: { stepId: expect.any(String), stepType: 'search', instructions: 'Find recent cost studies.' },
      });
      const { planId } = plan;

      const first = await use('get_next_step', { planId, sessionId: session });
      expect(first).toMatchObject({ status: 'next_step', step: { stepOrder: 1, stepType: 'search' } });
      const stepId = first.step.stepId as string;

      const artifact = await use('store_research', {
        artifactType: 'source_list',
        title: `Cost studies ${word}`,
        content: { sources: ['https://example.org/a'] },
        contentText: `Sodium-ion cost studies mention ${word} in 2025.`,
        confidence: 0.8,
        planId,
        stepId,
      });
      expect(artifact).toMatchObject({ id: expect.any(String), artifactType: 'source_list', stored: true });

      const report = await use('submit_subagent_report', {
        planId,
        stepId,
        description: 'Search the literature.',
        report: { thinking: 'Start broad.', webSearches: [{ query: 'sodium-ion cost' }], toolCalls: [] },
        sessionId: session,
      });
      expect(report).toEqual({ reportId: expect.any(String), stored: true });

      // No model on the server and no sampling: the client's own model fills the schema through
      // the handle extract_data returns, and submit_extraction answers in the reference's shape.
      const sourceText = 'Cell cost: 87 USD per kWh.';
      const extractionSchema = { type: 'object', properties: { cellCost: { type: 'number' } } };
      const asked = await use('extract_data', {
        sourceText,
        extractionSchema,
        schemaVersion: 1,
        planId,
        stepId,
        sourceUrl: 'https://example.org/a',
        sourceLocation: { page: 2 },
      });
      expect(asked).toMatchObject({ status: 'awaiting_submission', handle: expect.any(String) });
      const extraction = await use('submit_extraction', {
        handle: asked.handle,
        data: { cellCost: 87 },
        extractionSchema,
        sourceText,
      });
      expect(extraction).toMatchObject({
        extractionId: expect.any(String),
        status: 'completed',
        fieldConfidences: expect.any(Object),
        overallConfidence: expect.any(Number),
      });

      const context = await use('get_step_context', { planId, stepId });
      expect(context).toMatchObject({ currentStep: { stepId }, priorSteps: [] });
      expect(context.artifacts.map((a: { id: string }) => a.id)).toContain(artifact.id);

      expect(
        await use('submit_step_result', {
          planId,
          stepId,
          result: { sources: { count: 4 } },
          confidence: 0.85,
          stepExecutionReport: { thinking: 'Four studies agree.', webSearches: [{ query: 'sodium-ion cost' }] },
          outputFormattingNotes: 'Use a cost table.',
          sessionId: session,
        }),
      ).toEqual({ submitted: true, planStatus: 'executing' });

      const checkpoint = await use('get_next_step', { planId });
      const review = await use('request_user_review', {
        planId,
        stepId: checkpoint.step.stepId,
        summary: 'Four studies found.',
        questions: ['Include grid storage?'],
        sessionId: session,
      });
      expect(review).toMatchObject({ stepStatus: 'awaiting_input', planStatus: 'awaiting_review' });
      expect(await use('get_next_step', { planId })).toMatchObject({
        status: 'awaiting_review',
        review: { stepId: checkpoint.step.stepId, questions: ['Include grid storage?'] },
      });
      expect(
        await use('submit_user_decision', {
          planId,
          stepId: checkpoint.step.stepId,
          decision: 'approve',
          feedback: 'Yes, include it.',
          sessionId: session,
        }),
      ).toMatchObject({ decision: 'approve', stepStatus: 'completed', planStatus: 'executing' });

      const pending = (await call('get_plan_status', { planId })).data.pendingSteps[0].stepId as string;
      const modified = await use('modify_plan', {
        planId,
        action: 'update_step_instructions',
        stepId: pending,
        updatedInstructions: 'Write the comparison, with grid storage.',
        modificationRationale: 'The user asked for grid storage.',
        sessionId: session,
      });
      expect(modified).toMatchObject({ planId, action: 'update_step_instructions' });

      const status = await use('get_plan_status', { planId });
      expect(status).toMatchObject({
        planId,
        status: 'executing',
        derivedStatus: 'executing',
        stalled: false,
        totalSteps: 3,
        completedSteps: [{ stepOrder: 1 }, { stepOrder: 2 }],
        pendingSteps: [{ stepOrder: 3 }],
      });

      const active = await use('list_active_plans', {});
      expect(active.plans).toContainEqual(
        expect.objectContaining({ planId, name: `Batteries ${era}`, status: 'executing', completedSteps: 2 }),
      );
      expect(active.activePlans).toBe(active.plans.length);

      const last = await use('get_next_step', { planId });
      await use('submit_step_result', { planId, stepId: last.step.stepId, result: { table: 'done' } });
      expect(await use('get_next_step', { planId })).toMatchObject({
        status: 'plan_complete',
        outputMediaType: 'conversation',
        planFormattingNotes: 'A table first.',
        stepFormattingNotes: [{ stepId, stepOrder: 1, notes: 'Use a cost table.' }],
      });

      const output = await use('store_research_output', {
        planId,
        mediaType: 'markdown',
        title: 'Sodium-ion vs lithium-ion',
        content: `| | cost |\n|---|---|\n| Na-ion | 87 |`,
        contentSummary: `Sodium-ion is cheaper per kWh (${word}).`,
        formattingNotesUsed: 'Cost table first.',
        sessionId: session,
      });
      expect(output).toMatchObject({ outputId: expect.any(String), mediaType: 'markdown', stored: true });

      expect(
        await use('log_skill_execution', {
          executionId: execution.executionId,
          skillName: 'research-deep',
          status: 'completed',
          planId,
          metadata: { stepCount: 3 },
        }),
      ).toMatchObject({ executionId: execution.executionId, status: 'completed', stored: true });

      expect(
        await use('submit_research_feedback', {
          planId,
          feedbackType: 'initial',
          userSatisfaction: 'positive',
          userFeedbackSummary: 'Clear table.',
          sessionId: session,
        }),
      ).toEqual({ feedbackId: expect.any(String), feedbackType: 'initial', stored: true });
      expect(
        await use('submit_research_feedback', {
          planId,
          feedbackType: 'closing',
          userSatisfaction: 'none',
          improvementSuggestions: 'More regions.',
          followUpRequested: true,
          followUpDetails: 'Look at China.',
        }),
      ).toMatchObject({ feedbackType: 'closing', stored: true });

      const resumed = await use('get_research_context', { planId, sessionId: `${session}-2` });
      expect(resumed.plan).toMatchObject({
        id: planId,
        name: `Batteries ${era}`,
        researchQuestion: expect.any(String),
        status: 'completed',
        createdAt: expect.any(String),
      });
      expect(resumed.steps[0]).toMatchObject({
        stepId,
        stepOrder: 1,
        stepType: 'search',
        status: 'completed',
        resultSummary: expect.any(String),
        confidence: 0.85,
        stepExecutionReport: { thinking: 'Four studies agree.' },
      });
      expect(resumed.artifacts).toContainEqual(
        expect.objectContaining({ id: artifact.id, artifactType: 'source_list' }),
      );
      expect(resumed.recentAuditEvents[0]).toMatchObject({
        eventType: 'session_resumed',
        createdAt: expect.any(String),
      });
      expect(resumed.recentAuditEvents.at(-1)).toMatchObject({
        eventType: 'plan_modified',
        eventData: { action: 'created' },
      });
      for (const event of resumed.recentAuditEvents) {
        expect(Object.keys(event)).toEqual(expect.arrayContaining(['eventType', 'eventData', 'createdAt']));
      }
      expect(resumed.skillExecution).toMatchObject({
        id: execution.executionId,
        skillName: 'research-deep',
        status: 'completed',
        metadata: { detectedType: 'comparison', stepCount: 3 },
        durationMs: expect.any(Number),
      });
      expect(resumed.outputPreferences).toEqual({
        outputMediaType: 'conversation',
        planFormattingNotes: 'A table first.',
        stepFormattingNotes: [{ stepId, stepOrder: 1, notes: 'Use a cost table.' }],
      });

      // The indexer works asynchronously: what was stored with text becomes findable.
      const wanted = [
        ['research_artifact', artifact.id],
        ['research_output', output.outputId],
      ];
      const pairs = (answer: Awaited<ReturnType<typeof use>>) =>
        (answer.results as Array<{ sourceTable: string; sourceId: string }>).map((r) => [r.sourceTable, r.sourceId]);
      let found = await use('search_sources', { query: word, limit: 10, planId });
      for (let i = 0; i < 100 && !wanted.every((w) => pairs(found).some((p) => p[1] === w[1])); i++) {
        await sleep(100);
        found = await use('search_sources', { query: word, limit: 10, planId });
      }
      expect(found).toMatchObject({ query: word, queryType: expect.any(String), resultCount: expect.any(Number) });
      expect(pairs(found)).toEqual(expect.arrayContaining(wanted));

      // Trovella's 18, plus submit_extraction, the second half of extract_data without a server model.
      expect([...called].filter((name) => name !== 'submit_extraction')).toHaveLength(18);
      expect(called.has('submit_extraction')).toBe(true);
    });
  });
}
