import { citedSources } from './report-citations.js';

/**
 * The plan report (`quarry://plans/{planId}/report`): a readable markdown account of a plan,
 * rendered from what the research-context and deliverables-list tools return. Pure: data in,
 * markdown out; reading the data is report-read.ts's.
 */

/** The parts of the research-context tool's answer the report uses (proto3 JSON names). */
export interface ReportContext {
  plan: {
    id: string;
    name: string;
    researchQuestion: string;
    status: string;
    progress?: number;
    totalSteps?: number;
    planDesignRationale?: string;
    createdAt?: string;
    updatedAt?: string;
  };
  steps?: ReportStep[];
  artifacts?: ReportArtifact[];
  recentAuditEvents?: ReportAuditEvent[];
}

export interface ReportStep {
  stepId?: string;
  stepOrder: number;
  stepType: string;
  status: string;
  instructions?: string;
  result?: unknown;
  resultSummary?: string;
  confidence?: number;
  failureReason?: string;
}

export interface ReportArtifact {
  id: string;
  artifactType?: string;
  title: string;
  confidence?: number;
  stepId?: string;
  url?: string;
}

export interface ReportAuditEvent {
  eventType: string;
  createdAt?: string;
  eventData?: Record<string, unknown>;
}

/** A deliverable as the deliverables-list tool returns it. */
export interface ReportOutput {
  outputId: string;
  title: string;
  mimeType?: string;
  sizeBytes?: number;
  createdAt?: string;
  url?: string;
}

/** What the report could not read (a tool outside the caller's allowlist): said, not hidden. */
export interface ReportGaps {
  deliverables?: string;
}

/** How much of a step's instructions and result the report shows; the rest is in the plan's tools. */
const INSTRUCTIONS_CHARS = 600;
const RESULT_CHARS = 2_000;

export function renderPlanReport(
  context: ReportContext,
  outputs: readonly ReportOutput[],
  gaps: ReportGaps = {},
  /** The plan's page in the web app, when there is a public URL. */
  planPage?: string,
  /** An address's permalink (its page kept), when there is a public URL. */
  linkOf: (address: string) => string | undefined = () => undefined,
): string {
  const { plan } = context;
  const lines: string[] = [`# ${oneLine(plan.name)}`, ''];
  lines.push(`**Question:** ${oneLine(plan.researchQuestion)}`, '');
  const progress = plan.progress !== undefined ? `, ${round(plan.progress)}% done` : '';
  const steps = plan.totalSteps !== undefined ? ` of ${plan.totalSteps} step${plan.totalSteps === 1 ? '' : 's'}` : '';
  lines.push(`**Status:** ${plan.status}${progress}${steps}`);
  if (plan.updatedAt) lines.push(`**Last changed:** ${plan.updatedAt}`);
  lines.push(`**Status as JSON:** quarry://plans/${plan.id}`);
  if (planPage) lines.push(`**In the web app:** ${planPage}`);
  lines.push('');
  if (plan.planDesignRationale) lines.push('## Why this plan', '', plan.planDesignRationale.trim(), '');

  lines.push('## Steps', '');
  const stepList = [...(context.steps ?? [])].sort((a, b) => a.stepOrder - b.stepOrder);
  if (stepList.length === 0) lines.push('No steps.', '');
  for (const step of stepList) lines.push(...stepLines(step));

  const reviews = (context.recentAuditEvents ?? []).filter((e) => e.eventType === 'user_reviewed');
  if (reviews.length > 0) {
    lines.push('## Reviews and decisions', '');
    // Audit events come newest first; a report reads in order.
    for (const event of [...reviews].reverse()) lines.push(`- ${reviewLine(event)}`);
    lines.push('');
  }

  lines.push('## Artifacts', '');
  const artifacts = context.artifacts ?? [];
  if (artifacts.length === 0) lines.push('None stored yet.');
  const orderOfStep = new Map(stepList.map((s) => [s.stepId, s.stepOrder]));
  for (const artifact of artifacts) {
    const details = [
      artifact.artifactType,
      artifact.confidence !== undefined ? `confidence ${round(artifact.confidence, 2)}` : undefined,
      artifact.stepId && orderOfStep.has(artifact.stepId) ? `step ${orderOfStep.get(artifact.stepId)}` : undefined,
    ].filter(Boolean);
    const url = artifact.url ?? `quarry://artifacts/${artifact.id}`;
    lines.push(`- [${linkText(artifact.title)}](${url})${details.length ? ` — ${details.join(', ')}` : ''}`);
  }
  lines.push('');

  // What the steps' results cite by address, each linked to the page cited where there is one.
  const cited = citedSources(stepList);
  if (cited.length > 0) {
    lines.push('## Sources cited', '');
    const titles = new Map(artifacts.map((a) => [a.id, a.title]));
    for (const source of cited) {
      const title = titles.get(source.artifactId) ?? `artifact ${source.artifactId.slice(0, 8)}`;
      const page = source.page === undefined ? '' : `, page ${source.page}`;
      const steps = `step${source.steps.length === 1 ? '' : 's'} ${source.steps.join(', ')}`;
      lines.push(`- [${linkText(title)}${page}](${linkOf(source.address) ?? source.address}) — ${steps}`);
    }
    lines.push('');
  }

  lines.push('## Deliverables', '');
  if (gaps.deliverables) lines.push(gaps.deliverables);
  else if (outputs.length === 0) lines.push('None delivered yet.');
  for (const output of outputs) {
    const details = [
      output.mimeType?.split(';')[0],
      output.sizeBytes !== undefined ? `${output.sizeBytes} bytes` : undefined,
      output.createdAt,
    ].filter(Boolean);
    const url = output.url ?? `quarry://outputs/${output.outputId}`;
    lines.push(`- [${linkText(output.title)}](${url})${details.length ? ` — ${details.join(', ')}` : ''}`);
  }
  lines.push('');
  return lines.join('\n');
}

function stepLines(step: ReportStep): string[] {
  const lines = [`### ${step.stepOrder}. ${step.stepType} — ${step.status}`, ''];
  if (step.instructions) lines.push(quote(clip(step.instructions.trim(), INSTRUCTIONS_CHARS)), '');
  if (step.confidence !== undefined) lines.push(`**Confidence:** ${round(step.confidence, 2)}`, '');
  if (step.failureReason) lines.push(`**Failed:** ${oneLine(step.failureReason)}`, '');
  const result = step.resultSummary ? clip(step.resultSummary.trim(), RESULT_CHARS) : resultText(step.result);
  if (result) lines.push('**Result:**', '', result, '');
  return lines;
}

function resultText(result: unknown): string | undefined {
  if (result === undefined || result === null) return undefined;
  if (typeof result === 'object' && Object.keys(result).length === 0) return undefined;
  return '```json\n' + clip(JSON.stringify(result, null, 2), RESULT_CHARS) + '\n```';
}

function reviewLine(event: ReportAuditEvent): string {
  const data = event.eventData ?? {};
  const when = event.createdAt ? `${event.createdAt}: ` : '';
  if (data.action === 'review_requested') {
    const summary = typeof data.summary === 'string' ? ` — ${oneLine(clip(data.summary, 300))}` : '';
    return `${when}review requested${summary}`;
  }
  if (data.action === 'decision_submitted') {
    const feedback =
      typeof data.feedback === 'string' && data.feedback ? ` — ${oneLine(clip(data.feedback, 300))}` : '';
    return `${when}decision **${String(data.decision ?? 'unknown')}**${feedback}`;
  }
  return `${when}review event`;
}

const round = (value: number, digits = 0) => Number(value.toFixed(digits));
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const linkText = (text: string) => oneLine(text).replace(/([[\]\\])/g, '\\$1') || 'untitled';
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
const quote = (text: string) =>
  text
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
