import { describe, expect, it } from '@jest/globals';
import type { GetPromptResult } from '@modelcontextprotocol/server';
import { toolCatalogue } from '@quarry/contracts';
import { parsePromptArguments } from '../src/mcp/prompts/arguments.js';
import { promptList, promptSpec } from '../src/mcp/prompts/catalogue.js';
import type { PlanSnapshot } from '../src/mcp/prompts/plan-snapshot.js';
import { addStep, deliverOutput, resumeResearch, reviewStep, startResearch } from '../src/mcp/prompts/texts.js';
import { VOCABULARY as vocabulary } from '../src/mcp/prompts/vocabulary.js';

// The prompt texts and their arguments, pure: arguments and plan data in, messages out.

const planId = '0b8f7c1e-6a35-4d2b-9d0c-1f2e3a4b5c6d';
const step = (order: number, stepType: string, status: string) => ({
  stepId: `00000000-0000-4000-8000-00000000000${order}`,
  stepOrder: order,
  stepType,
  status,
  instructions: `Do the ${stepType} work.`,
});
const plan = (overrides: Partial<PlanSnapshot> = {}): PlanSnapshot => ({
  planId,
  name: 'Lithium prices',
  status: 'executing',
  stalled: false,
  progress: 33.3,
  totalSteps: 3,
  completedSteps: [step(1, 'search', 'completed')],
  currentStep: step(2, 'analyze', 'in_progress'),
  pendingSteps: [step(3, 'synthesize', 'pending')],
  ...overrides,
});
const textOf = (result: GetPromptResult) => {
  const first = result.messages[0]!.content;
  return first.type === 'text' ? first.text : '';
};
/** Asserts the tools are named, and named in this order. */
const expectInOrder = (text: string, ...tools: string[]) => {
  const at = tools.map((t) => text.indexOf(t));
  for (const [i, position] of at.entries())
    expect({ tool: tools[i], found: position >= 0 }).toEqual({ tool: tools[i], found: true });
  expect(at).toEqual([...at].sort((a, b) => a - b));
};

describe('vocabulary', () => {
  const enumOf = (tool: string, ...path: string[]): unknown => {
    let schema: any = toolCatalogue.find((t) => t.name === tool)!.inputSchema; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const key of path) schema = key === 'items' ? schema.items : schema.properties[key];
    return schema.enum;
  };

  it('offers exactly the values the tools take', () => {
    expect(vocabulary.mediaTypes).toEqual(['conversation', 'markdown', 'html', 'word', 'excel', 'powerpoint']);
    expect(vocabulary.mediaTypes).toEqual(enumOf('store_research_output', 'mediaType'));
    expect(vocabulary.stepTypes).toEqual(enumOf('create_research_plan', 'steps', 'items', 'stepType'));
    expect(vocabulary.stepTypes).toEqual(expect.arrayContaining(['search', 'critique', 'checkpoint', 'synthesize']));
    expect(vocabulary.depths).toEqual(['quick', 'standard', 'deep']);
  });
});

describe('prompt list', () => {
  it('lists the workflow prompts with their arguments, closed lists spelled out', () => {
    const prompts = promptList(vocabulary);
    expect(prompts.map((p) => p.name)).toEqual([
      'start_research',
      'resume_research',
      'deliver_output',
      'review_step',
      'add_step',
    ]);
    const deliver = prompts.find((p) => p.name === 'deliver_output')!;
    expect(deliver.arguments).toEqual([
      expect.objectContaining({ name: 'planId', required: true }),
      expect.objectContaining({
        name: 'mediaType',
        required: true,
        description: expect.stringContaining('word, excel'),
      }),
    ]);
    expect(prompts[0]!.arguments).toEqual([
      expect.objectContaining({ name: 'question', required: true }),
      expect.objectContaining({ name: 'depth', required: false }),
    ]);
  });
});

describe('start_research', () => {
  it.each([
    ['quick', /2 to 3 steps/],
    ['standard', /4 to 6 steps.*checkpoint/],
    ['deep', /7 to 12 steps.*critique.*branching conditions/],
  ] as const)('sizes a %s plan and walks the loop in order', (depth, sizing) => {
    const text = textOf(startResearch('Why did lithium prices fall?', depth, vocabulary));
    expect(text).toContain('Question: Why did lithium prices fall?');
    expect(text).toMatch(sizing);
    expect(text).toContain(`stepType one of ${vocabulary.stepTypes.join(', ')}`);
    expectInOrder(
      text,
      'create_research_plan',
      'get_next_step',
      'store_research ',
      'submit_step_result',
      'request_user_review',
      'submit_user_decision',
      'store_research_output',
      'submit_research_feedback',
    );
  });
});

describe('prompts about a plan', () => {
  it('resume_research embeds where the plan stands, loads its context first and links the plan', () => {
    const result = resumeResearch(plan());
    const text = textOf(result);
    expect(text).toContain(`"Lithium prices" (planId ${planId})`);
    expect(text).toContain('Status: executing; 33% of 3 steps done.');
    expect(text).toContain(`Current: step 2 (analyze), in_progress, stepId ${step(2, '', '').stepId}`);
    expect(text).toContain('Pending: 3. synthesize: Do the synthesize work.');
    expectInOrder(text, 'get_research_context', 'get_next_step', 'submit_step_result');
    expect(result.messages[1]!.content).toMatchObject({ type: 'resource_link', uri: `quarry://plans/${planId}` });
  });

  it('resume_research says what to do first for a plan awaiting review, stalled or finished', () => {
    expect(textOf(resumeResearch(plan({ status: 'awaiting_review' })))).toMatch(
      /review.*submit_user_decision before anything else/,
    );
    expect(textOf(resumeResearch(plan({ status: 'stalled', stalled: true })))).toMatch(/fail_step/);
    expect(textOf(resumeResearch(plan({ status: 'cancelled' })))).toMatch(/The plan is cancelled/);
  });

  it('deliver_output reads the results, writes the form asked for and stores it', () => {
    const text = textOf(deliverOutput(plan({ currentStep: undefined, pendingSteps: [] }), 'markdown'));
    expectInOrder(text, 'get_research_context', 'store_research_output', 'submit_research_feedback');
    expect(text).toContain('mediaType markdown');
    expect(text).not.toMatch(/base64|not cover/);
    const binary = textOf(deliverOutput(plan(), 'powerpoint'));
    expect(binary).toMatch(/powerpoint document goes to Quarry as its bytes, base64-encoded/);
    expect(binary).toContain('Not every step is finished');
  });

  it("review_step shows the step awaiting input and records only the user's decision", () => {
    const awaiting = step(2, 'checkpoint', 'awaiting_input');
    const text = textOf(reviewStep(plan({ status: 'awaiting_review', currentStep: awaiting })));
    expect(text).toContain(`stepId ${awaiting.stepId}`);
    expectInOrder(text, 'get_step_context', 'submit_user_decision', 'get_next_step');
    expect(text).toMatch(/approve.*modify.*skip.*reject/);
  });

  it('review_step says so when no step waits for review', () => {
    const text = textOf(reviewStep(plan()));
    expect(text).toContain('No step of the research plan "Lithium prices"');
    expectInOrder(text, 'request_user_review', 'submit_user_decision');
  });

  it('add_step adds a step of the kind asked for with modify_plan', () => {
    const text = textOf(addStep(plan(), 'critique'));
    expect(text).toContain('Add a critique step');
    expect(text).toMatch(/modify_plan with planId .* action add_steps and one step: stepType critique/);
  });
});

describe('prompt arguments', () => {
  const parse = (name: string, args: Record<string, unknown> | undefined) =>
    parsePromptArguments(promptSpec(name)!, args, vocabulary);

  it('accepts valid arguments, trimmed, with optional ones left out', () => {
    expect(parse('start_research', { question: '  Why? ' })).toEqual({ question: 'Why?' });
    expect(parse('deliver_output', { planId: planId.toUpperCase(), mediaType: 'excel' })).toEqual({
      planId,
      mediaType: 'excel',
    });
  });

  it.each([
    ['start_research', undefined, /start_research needs the argument "question"/],
    ['start_research', { question: '   ' }, /needs the argument "question"/],
    [
      'start_research',
      { question: 'Why?', depth: 'medium' },
      /"medium" is not a valid depth; use one of: quick, standard, deep/,
    ],
    [
      'start_research',
      { question: 'Why?', topic: 'x' },
      /start_research has no argument "topic"; it takes question, depth/,
    ],
    ['start_research', { question: 'x'.repeat(4001) }, /4001 characters long; at most 4000/],
    ['resume_research', { planId: 'lithium' }, /"lithium" is not a plan ID/],
    ['deliver_output', { planId }, /needs the argument "mediaType"/],
    [
      'deliver_output',
      { planId, mediaType: 'pdf' },
      /use one of: conversation, markdown, html, word, excel, powerpoint/,
    ],
    ['add_step', { planId, stepType: 'dance' }, /"dance" is not a valid stepType/],
    ['review_step', { planId: 42 }, /must be a string/],
  ])('%s %j is refused as invalid params', (name, args, message) => {
    expect(() => parse(name, args as Record<string, unknown> | undefined)).toThrow(
      expect.objectContaining({ code: -32602, message: expect.stringMatching(message) }),
    );
  });
});
