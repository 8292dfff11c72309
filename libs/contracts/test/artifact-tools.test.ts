import { describe, expect, it } from '@jest/globals';
import { ContractError, createToolCodec, toolCatalogue } from '@quarry/contracts';
import { properties, required, tool } from './support/tools.js';

// The artifact store's tools as MCP clients see them: names, argument and result
// fields exactly as the tool catalogue documents them, what is required, the enums and the limits. The
// internal rpcs (ListPlanArtifacts, ResolvePlanReference) are not tools.

const PLAN_ID = '0b6d1c9e-6f1a-4f5e-9a51-2f8e0a4b7c10';
const STEP_ID = '5a0f3c2e-8d41-4b7a-a0c9-3e6f1d2b9a84';

describe('the artifact tools', () => {
  const contract: [string, string[], string[], string[]][] = [
    [
      'store_research',
      ['artifactType', 'title', 'content', 'contentText', 'confidence', 'planId', 'stepId', 'tags', 'idempotencyKey'],
      ['artifactType', 'title', 'content'],
      ['id', 'artifactType', 'title', 'stored'],
    ],
    [
      'store_research_output',
      [
        'planId',
        'mediaType',
        'title',
        'content',
        'contentSummary',
        'formattingNotesUsed',
        'sessionId',
        'idempotencyKey',
      ],
      ['planId', 'mediaType', 'title', 'content'],
      ['outputId', 'mediaType', 'title', 'stored'],
    ],
    [
      'submit_subagent_report',
      ['planId', 'stepId', 'description', 'report', 'sessionId', 'idempotencyKey'],
      ['planId', 'stepId', 'description', 'report'],
      ['reportId', 'stored'],
    ],
  ];

  it.each(contract)('%s takes and returns exactly the documented fields', (name, inputs, requiredInputs, outputs) => {
    const t = tool(name);
    expect(t.rpc.service).toBe('quarry.artifact.v1.ArtifactService');
    expect(Object.keys(properties(t.inputSchema))).toEqual(inputs);
    expect(required(t.inputSchema)).toEqual(requiredInputs);
    expect(Object.keys(properties(t.outputSchema))).toEqual(outputs);
    expect(t.description.length).toBeGreaterThan(80);
    expect(t.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
  });

  it('offers the artifact and media types as short lowercase names, and ids as UUIDs', () => {
    expect(properties(tool('store_research').inputSchema).artifactType!.enum).toEqual([
      'analysis',
      'synthesis',
      'comparison',
      'summary',
      'source_list',
      'finding',
    ]);
    expect(properties(tool('store_research_output').inputSchema).mediaType!.enum).toEqual([
      'conversation',
      'markdown',
      'html',
      'word',
      'excel',
      'powerpoint',
    ]);
    for (const [name, field] of [
      ['store_research', 'planId'],
      ['store_research', 'stepId'],
      ['store_research_output', 'planId'],
      ['submit_subagent_report', 'planId'],
      ['submit_subagent_report', 'stepId'],
    ] as const) {
      expect({ name, field, format: properties(tool(name).inputSchema)[field]!.format }).toEqual({
        name,
        field,
        format: 'uuid',
      });
    }
  });

  it('publishes no internal rpc as a tool', () => {
    const rpcs = toolCatalogue.map((t) => t.rpc.method);
    expect(rpcs).not.toContain('ListPlanArtifacts');
    expect(rpcs).not.toContain('ResolvePlanReference');
  });

  const problem = (name: string, args: unknown): string | undefined => {
    try {
      createToolCodec(tool(name)).encodeRequest(args);
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ContractError);
      return (error as Error).message;
    }
  };

  it('accepts well-formed arguments', () => {
    expect(
      problem('store_research', {
        artifactType: 'finding',
        title: 't',
        content: { a: 1 },
        confidence: 1,
        planId: PLAN_ID,
        stepId: STEP_ID,
        tags: ['x'],
      }),
    ).toBeUndefined();
    expect(
      problem('store_research_output', { planId: PLAN_ID, mediaType: 'word', title: 't', content: 'UEsDBA==' }),
    ).toBeUndefined();
    expect(
      problem('submit_subagent_report', { planId: PLAN_ID, stepId: STEP_ID, description: 'd', report: {} }),
    ).toBeUndefined();
  });

  it.each([
    ['store_research', 'artifactType', { artifactType: 'opinion', title: 't', content: {} }],
    ['store_research', 'content', { artifactType: 'finding', title: 't' }],
    ['store_research', 'confidence', { artifactType: 'finding', title: 't', content: {}, confidence: 1.5 }],
    ['store_research', 'tags', { artifactType: 'finding', title: 't', content: {}, tags: ['a', 'a'] }],
    ['store_research_output', 'mediaType', { planId: PLAN_ID, mediaType: 'pdf', title: 't', content: 'x' }],
    ['store_research_output', 'content', { planId: PLAN_ID, mediaType: 'markdown', title: 't', content: '' }],
    ['store_research_output', 'planId', { planId: 'plan-1', mediaType: 'markdown', title: 't', content: 'x' }],
    ['submit_subagent_report', 'report', { planId: PLAN_ID, stepId: STEP_ID, description: 'd' }],
    ['submit_subagent_report', 'stepId', { planId: PLAN_ID, description: 'd', report: {} }],
  ])('%s refuses a bad `%s`, naming it', (name, field, args) => {
    expect(problem(name, args)).toMatch(new RegExp(field));
  });
});
