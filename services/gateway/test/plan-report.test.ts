import { describe, expect, it } from '@jest/globals';
import { renderPlanReport, type ReportContext } from '../src/mcp/resources/plan-report.js';

// The plan report renderer: get_research_context's answer and a plan's deliverables in, markdown
// out, with every stored item linked by its quarry:// url.

const PLAN_ID = '6f1c2b9e-6b7a-4a44-9c71-4f6a2e1d0a11';
const context: ReportContext = {
  plan: {
    id: PLAN_ID,
    name: 'Lithium\nprices',
    researchQuestion: 'Why did lithium fall in 2024?',
    status: 'executing',
    progress: 50,
    totalSteps: 2,
    planDesignRationale: 'Search first, then write.',
    updatedAt: '2026-11-20T10:00:00Z',
  },
  steps: [
    { stepId: 's2', stepOrder: 2, stepType: 'synthesize', status: 'pending', instructions: 'Write it up.' },
    {
      stepId: 's1',
      stepOrder: 1,
      stepType: 'search',
      status: 'completed',
      instructions: 'Find the sources.',
      result: { sources: ['a', 'b'] },
      confidence: 0.8234,
    },
  ],
  artifacts: [
    {
      id: 'a1',
      artifactType: 'finding',
      title: 'Prices [fell]',
      confidence: 0.9,
      stepId: 's1',
      url: 'quarry://artifacts/a1',
    },
  ],
  recentAuditEvents: [
    {
      eventType: 'user_reviewed',
      createdAt: '2026-11-20T09:30:00Z',
      eventData: { action: 'decision_submitted', decision: 'approve', feedback: 'Good.' },
    },
    { eventType: 'step_completed', createdAt: '2026-11-20T09:10:00Z' },
    {
      eventType: 'user_reviewed',
      createdAt: '2026-11-20T09:20:00Z',
      eventData: { action: 'review_requested', summary: 'Sources found.' },
    },
  ],
};

describe('renderPlanReport', () => {
  it('gives the question, the status, each step in order with its result and confidence, reviews, artifacts and deliverables', () => {
    const markdown = renderPlanReport(context, [
      {
        outputId: 'o1',
        title: 'Lithium report',
        mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        sizeBytes: 1234,
        createdAt: '2026-11-20T11:00:00Z',
        url: 'quarry://outputs/o1',
      },
    ]);
    expect(markdown).toMatch(/^# Lithium prices\n/);
    expect(markdown).toContain('**Question:** Why did lithium fall in 2024?');
    expect(markdown).toContain('**Status:** executing, 50% done of 2 steps');
    expect(markdown).toContain(`**Status as JSON:** quarry://plans/${PLAN_ID}`);
    expect(markdown).toContain('## Why this plan\n\nSearch first, then write.');
    expect(markdown.indexOf('### 1. search — completed')).toBeLessThan(markdown.indexOf('### 2. synthesize — pending'));
    expect(markdown).toContain('> Find the sources.');
    expect(markdown).toContain('**Confidence:** 0.82');
    expect(markdown).toContain('```json\n{\n  "sources": [');
    // Reviews in the order they happened (audit events come newest first).
    expect(markdown).toContain(
      '- 2026-11-20T09:20:00Z: review requested — Sources found.\n- 2026-11-20T09:30:00Z: decision **approve** — Good.',
    );
    expect(markdown).not.toContain('step_completed');
    expect(markdown).toContain('- [Prices \\[fell\\]](quarry://artifacts/a1) — finding, confidence 0.9, step 1');
    expect(markdown).toContain(
      '- [Lithium report](quarry://outputs/o1) — application/vnd.openxmlformats-officedocument.wordprocessingml.document, 1234 bytes, 2026-11-20T11:00:00Z',
    );
  });

  it('prefers the bounded result summary, clips long text, and says when nothing is stored', () => {
    const markdown = renderPlanReport(
      {
        plan: { ...context.plan, planDesignRationale: undefined },
        steps: [
          {
            stepOrder: 1,
            stepType: 'analyze',
            status: 'completed',
            instructions: 'x'.repeat(5_000),
            result: { huge: 'y'.repeat(10_000) },
            resultSummary: 'Short summary.',
          },
        ],
      },
      [],
    );
    expect(markdown).toContain('**Result:**\n\nShort summary.');
    expect(markdown).not.toContain('huge');
    expect(markdown).toContain(`> ${'x'.repeat(600)}…`);
    expect(markdown).not.toContain('## Why this plan');
    expect(markdown).not.toContain('## Reviews');
    expect(markdown).toContain('## Artifacts\n\nNone stored yet.');
    expect(markdown).toContain('## Deliverables\n\nNone delivered yet.');
  });

  it('says why deliverables are missing when they could not be read, and links artifacts without a url by id', () => {
    const markdown = renderPlanReport({ plan: context.plan, artifacts: [{ id: 'a9', title: '' }] }, [], {
      deliverables: 'Not shown: this token may not call list_research_outputs.',
    });
    expect(markdown).toContain('## Steps\n\nNo steps.');
    expect(markdown).toContain('- [untitled](quarry://artifacts/a9)');
    expect(markdown).toContain('## Deliverables\n\nNot shown: this token may not call list_research_outputs.');
  });

  it('lists the sources the steps cite by address, each linked to the page cited, as a permalink with a public URL', () => {
    const doc = '0b5e1f0e-2c41-4d1e-9a3f-5d2b7c9e8a10';
    const other = '7d3c2a1b-0f4e-4c5d-8b6a-9e8d7c6b5a40';
    const cited: ReportContext = {
      ...context,
      artifacts: [{ id: doc, title: 'Harbour report', url: `quarry://artifacts/${doc}` }],
      steps: [
        {
          stepOrder: 1,
          stepType: 'search',
          status: 'completed',
          result: { hits: [{ url: `quarry://artifacts/${doc}#page=37` }, { url: `quarry://artifacts/${other}` }] },
        },
        {
          stepOrder: 2,
          stepType: 'synthesize',
          status: 'completed',
          resultSummary: `Tin fell (quarry://artifacts/${doc}#page=37; quarry://artifacts/${doc}#page=12).`,
        },
      ],
    };
    expect(renderPlanReport(cited, [])).toContain(
      [
        '## Sources cited',
        '',
        `- [Harbour report, page 37](quarry://artifacts/${doc}#page=37) — steps 1, 2`,
        `- [artifact 7d3c2a1b](quarry://artifacts/${other}) — step 1`,
        `- [Harbour report, page 12](quarry://artifacts/${doc}#page=12) — step 2`,
        '',
      ].join('\n'),
    );
    const linked = renderPlanReport(cited, [], {}, undefined, (address) =>
      address.replace('quarry://artifacts/', 'https://quarry.example/app/artifacts/'),
    );
    expect(linked).toContain(
      `- [Harbour report, page 37](https://quarry.example/app/artifacts/${doc}#page=37) — steps 1, 2`,
    );
    expect(renderPlanReport(context, [])).not.toContain('## Sources cited');
  });
});
