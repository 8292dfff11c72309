import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { planV1 } from '@quarry/contracts';
import { expectRefusal, OutputMediaType, type PlanCaller, stepsOf } from '../support/plan-api.js';
import { startTestPlanEngine, type TestPlanEngine } from '../support/plan-engine.js';

// The organization's output preferences and default depth as the web app reads and sets them
// (internal rpcs), in the row get_research_context reads; one organization never sees another's.

const { ResearchDepth } = planV1;
let engine: TestPlanEngine;
let acme: PlanCaller;
let globex: PlanCaller;

beforeAll(async () => {
  engine = await startTestPlanEngine();
  acme = engine.newOrg();
  globex = engine.newOrg();
});
afterAll(async () => {
  await engine?.close();
});

describe('org output preferences', () => {
  it('reads the defaults while none are set', async () => {
    expect(await acme.call('getOrgOutputPreferences', {})).toEqual({
      preferences: { outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_CONVERSATION },
    });
  });

  it('sets what is given, keeps the rest, and get_research_context returns it', async () => {
    const set = await acme.call('setOrgOutputPreferences', {
      outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_WORD,
      outputFormattingInstructions: '  Use British spelling.  ',
      defaultDepth: ResearchDepth.RESEARCH_DEPTH_DEEP,
    });
    expect(set.preferences).toEqual({
      outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_WORD,
      outputFormattingInstructions: 'Use British spelling.',
      defaultDepth: ResearchDepth.RESEARCH_DEPTH_DEEP,
      updatedAt: expect.any(Date),
    });
    const kept = await acme.call('setOrgOutputPreferences', { defaultDepth: ResearchDepth.RESEARCH_DEPTH_SCAN });
    expect(kept.preferences).toMatchObject({
      outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_WORD,
      outputFormattingInstructions: 'Use British spelling.',
      defaultDepth: ResearchDepth.RESEARCH_DEPTH_SCAN,
    });
    const cleared = await acme.call('setOrgOutputPreferences', { outputFormattingInstructions: '' });
    expect(cleared.preferences?.outputFormattingInstructions).toBeUndefined();

    const { planId } = await acme.call('createResearchPlan', {
      name: 'Prefs',
      researchQuestion: 'Which form?',
      steps: stepsOf('search'),
    });
    const context = await acme.call('getResearchContext', { planId });
    expect(context.outputPreferences).toMatchObject({
      outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_WORD,
      defaultDepth: ResearchDepth.RESEARCH_DEPTH_SCAN,
    });
  });

  it("never reads or changes another organization's", async () => {
    expect((await globex.call('getOrgOutputPreferences', {})).preferences).toEqual({
      outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_CONVERSATION,
    });
    await globex.call('setOrgOutputPreferences', { outputMediaType: OutputMediaType.OUTPUT_MEDIA_TYPE_HTML });
    expect((await acme.call('getOrgOutputPreferences', {})).preferences?.outputMediaType).toBe(
      OutputMediaType.OUTPUT_MEDIA_TYPE_WORD,
    );
  });

  it('refuses instructions longer than a page', async () => {
    expectRefusal(
      await acme.refusal('setOrgOutputPreferences', { outputFormattingInstructions: 'x'.repeat(4001) }),
      'INVALID_ARGUMENT',
      /outputFormattingInstructions/,
    );
  });
});
