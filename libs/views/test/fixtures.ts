import type { OutputEntry, PlanStatusResult, ResearchContextResult, SearchSourcesResult } from '@quarry/views';

// Tool results as Quarry's tools return them, with stored content a hostile client or source
// could have written: markup, a script, an image with an onerror handler, javascript: links.

export const HOSTILE = {
  script: '<script>window.__pwned = 1</script>',
  image: '<img src=x onerror="window.__pwned = 1">',
  breakout: '"><svg onload="window.__pwned=1">',
  javascriptUrl: 'javascript:window.__pwned=1',
  fileName: '../../<b onmouseover=alert(1)>report".docx',
} as const;

const PLAN = '6f1c1a52-0c1e-4d5e-9a0b-000000000001';
const step = (order: number, status: string, instructions: string, extra: object = {}) => ({
  stepId: `00000000-0000-4000-8000-00000000000${order}`,
  stepOrder: order,
  stepType: 'analyze',
  status,
  instructions,
  ...extra,
});

export const status: PlanStatusResult = {
  planId: PLAN,
  name: `Hostile ${HOSTILE.script}`,
  status: 'awaiting_review',
  derivedStatus: 'awaiting_review',
  stalled: false,
  progress: 33.333,
  totalSteps: 4,
  completedSteps: [step(1, 'completed', `Find sources ${HOSTILE.image}`, { confidence: 0.871 })],
  currentStep: step(2, 'awaiting_input', 'Check with the user'),
  pendingSteps: [step(4, 'pending', 'Write it up')],
};

export const context: ResearchContextResult = {
  plan: {
    id: PLAN,
    name: status.name,
    researchQuestion: `Why ${HOSTILE.breakout}?`,
    status: 'awaiting_review',
    progress: 33.333,
    totalSteps: 4,
    updatedAt: '2026-11-28T17:40:12.345Z',
  },
  steps: [
    step(1, 'completed', 'Find sources', { resultSummary: `Found ${HOSTILE.script}`, confidence: 0.871 }),
    step(2, 'awaiting_input', 'Check with the user', { result: { note: HOSTILE.image } }),
    step(3, 'failed', 'Cross-check', { failureReason: HOSTILE.image }),
    step(4, 'pending', 'Write it up'),
  ],
  artifacts: [
    { id: 'a1', artifactType: 'source', title: HOSTILE.image, confidence: 0.5, stepId: step(1, '', '').stepId },
    { id: 'a2', artifactType: 'note', title: 'Plain note' },
  ],
  recentAuditEvents: [
    {
      eventId: 9,
      eventType: 'user_reviewed',
      stepId: step(2, '', '').stepId,
      eventData: { action: 'decision_submitted', decision: 'modify', feedback: HOSTILE.script },
      createdAt: '2026-11-28T17:41:00Z',
    },
    { eventId: 8, eventType: 'step_completed', eventData: { x: 1 } },
    {
      eventId: 7,
      eventType: 'user_reviewed',
      stepId: step(2, '', '').stepId,
      eventData: { action: 'review_requested', summary: HOSTILE.breakout },
      createdAt: '2026-11-28T17:40:00Z',
    },
  ],
};

export const outputs: OutputEntry[] = [
  {
    outputId: 'o1',
    title: HOSTILE.fileName,
    mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    sizeBytes: 20_480,
    url: HOSTILE.javascriptUrl,
  },
  {
    outputId: 'o2',
    title: 'Summary',
    mimeType: 'text/markdown; charset=utf-8',
    sizeBytes: 900,
    url: 'quarry://outputs/o2',
  },
];

export const searchSources: SearchSourcesResult = {
  query: HOSTILE.script,
  queryType: 'balanced',
  mode: 'hybrid',
  resultCount: 2,
  keywordResults: 5,
  semanticResults: 7,
  results: [
    {
      id: 'a1',
      sourceId: 'a1',
      sourceTable: 'research_artifact',
      title: HOSTILE.image,
      rrfScore: 0.0327868,
      inKeyword: true,
      inSemantic: true,
      keywordRank: 1,
      semanticRank: 3,
      textSnippet: `A passage ${HOSTILE.script}`,
      url: HOSTILE.javascriptUrl,
      createdAt: '2026-11-28T10:00:00Z',
      tags: [HOSTILE.breakout],
    },
    {
      id: 'x1',
      sourceId: 'x1',
      sourceTable: 'extraction_result',
      title: 'Table',
      rrfScore: 0.016,
      inKeyword: false,
      inSemantic: true,
      semanticRank: 2,
      textSnippet: 'rows',
      url: 'https://quarry.example/app/extractions/x1',
      tags: [],
    },
  ],
};
