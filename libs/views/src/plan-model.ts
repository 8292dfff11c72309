/**
 * The plan view's model, and how it is made from what Quarry's tools return (their structured
 * content, proto3 JSON names): get_plan_status for the live status, get_research_context for the
 * steps' results, artifacts and reviews, list_research_outputs for the deliverables. Every part
 * but the status is optional: the view shows what it was given.
 */

/** A step as the plan view shows it. */
export interface PlanViewStep {
  stepId: string;
  stepOrder: number;
  stepType?: string;
  status?: string;
  instructions: string;
  /** The step's result as the client summarised it, or its result object as JSON. */
  result?: string;
  confidence?: number;
  failureReason?: string;
  startedAt?: string;
  completedAt?: string;
  /** The step being worked on or waiting for review. */
  current: boolean;
}

/** A review requested or decided, in the order it happened. */
export interface PlanViewReview {
  kind: 'requested' | 'decided';
  at?: string;
  stepOrder?: number;
  /** For a decision: approve, reject, modify… */
  decision?: string;
  /** The reviewer's feedback, or the summary the client asked them to review. */
  note?: string;
}

/** A stored item the plan links to (an artifact or a deliverable). */
export interface PlanViewItem {
  id: string;
  title: string;
  /** Its page or address; shown as text when it is not a web or same-origin address. */
  href?: string;
  /** A short description: its kind, MIME type, size, step, confidence. */
  details: string[];
}

export interface PlanView {
  planId: string;
  name: string;
  researchQuestion?: string;
  status?: string;
  stalled: boolean;
  /** Percentage of steps completed or skipped, 0–100. */
  progress: number;
  totalSteps: number;
  updatedAt?: string;
  steps: PlanViewStep[];
  reviews: PlanViewReview[];
  artifacts: PlanViewItem[];
  deliverables: PlanViewItem[];
}

/** A step as get_plan_status returns it (current, completed and pending). */
export interface StatusStep {
  stepId: string;
  stepOrder: number;
  stepType?: string;
  status?: string;
  instructions: string;
  confidence?: number;
  startedAt?: string;
  completedAt?: string;
}

/** get_plan_status's structured content. */
export interface PlanStatusResult {
  planId: string;
  name: string;
  status?: string;
  derivedStatus?: string;
  stalled: boolean;
  progress: number;
  totalSteps: number;
  currentStep?: StatusStep;
  completedSteps: StatusStep[];
  pendingSteps: StatusStep[];
}

/** get_research_context's structured content (the parts the view shows). */
export interface ResearchContextResult {
  plan?: {
    id: string;
    name: string;
    researchQuestion: string;
    status?: string;
    progress: number;
    totalSteps: number;
    updatedAt?: string;
  };
  steps: (StatusStep & { result?: unknown; resultSummary?: string; failureReason?: string })[];
  artifacts: { id: string; artifactType: string; title: string; confidence?: number; stepId?: string }[];
  recentAuditEvents: {
    eventId: number;
    eventType?: string;
    stepId?: string;
    eventData?: unknown;
    createdAt?: string;
  }[];
}

/** A deliverable as list_research_outputs returns it. */
export interface OutputEntry {
  outputId: string;
  title: string;
  mimeType: string;
  sizeBytes: number;
  createdAt?: string;
  url: string;
}

/** Where a view links stored items to (the app's permalink pages); without it, the items' own url. */
export interface ViewLinks {
  artifact?(id: string): string;
  output?(id: string): string;
}

export interface PlanSources {
  status: PlanStatusResult;
  context?: ResearchContextResult;
  outputs?: readonly OutputEntry[];
}

/** How much of a result the view shows; the rest is in the plan's tools and pages. */
const RESULT_CHARS = 2_000;

export function planViewFrom(sources: PlanSources, links: ViewLinks = {}): PlanView {
  const { status, context, outputs = [] } = sources;
  const detailed = new Map((context?.steps ?? []).map((step) => [step.stepId, step]));
  const currentId = status.currentStep?.stepId;
  const listed = [
    ...status.completedSteps,
    ...(status.currentStep ? [status.currentStep] : []),
    ...status.pendingSteps,
  ];
  // The status lists finished, current and pending steps; a failed step (or a second one in
  // progress) is in neither list, so the context's steps complete the picture.
  const byId = new Map(listed.map((step) => [step.stepId, step]));
  for (const step of context?.steps ?? []) if (!byId.has(step.stepId)) byId.set(step.stepId, step);
  const steps = [...byId.values()]
    .sort((a, b) => a.stepOrder - b.stepOrder)
    .map((step): PlanViewStep => {
      const more = detailed.get(step.stepId);
      return {
        stepId: step.stepId,
        stepOrder: step.stepOrder,
        stepType: step.stepType,
        status: step.status ?? more?.status,
        instructions: step.instructions,
        result: resultText(more?.resultSummary, more?.result),
        confidence: step.confidence ?? more?.confidence,
        failureReason: more?.failureReason,
        startedAt: step.startedAt ?? more?.startedAt,
        completedAt: step.completedAt ?? more?.completedAt,
        current: step.stepId === currentId,
      };
    });
  const orderOf = new Map(steps.map((step) => [step.stepId, step.stepOrder]));
  return {
    planId: status.planId,
    name: status.name,
    researchQuestion: context?.plan?.researchQuestion,
    status: status.status ?? status.derivedStatus,
    stalled: status.stalled,
    progress: status.progress,
    totalSteps: status.totalSteps,
    updatedAt: context?.plan?.updatedAt,
    steps,
    reviews: reviewsOf(context?.recentAuditEvents ?? [], orderOf),
    artifacts: (context?.artifacts ?? []).map((artifact) => ({
      id: artifact.id,
      title: artifact.title,
      href: links.artifact?.(artifact.id),
      details: [
        artifact.artifactType,
        artifact.stepId && orderOf.has(artifact.stepId) ? `step ${orderOf.get(artifact.stepId)}` : undefined,
        artifact.confidence !== undefined ? `confidence ${artifact.confidence.toFixed(2)}` : undefined,
      ].filter((detail): detail is string => Boolean(detail)),
    })),
    deliverables: outputs.map((output) => ({
      id: output.outputId,
      title: output.title,
      href: links.output?.(output.outputId) ?? output.url,
      details: [output.mimeType.split(';')[0]!, bytes(output.sizeBytes)],
    })),
  };
}

function resultText(summary: string | undefined, result: unknown): string | undefined {
  const text = summary?.trim() || jsonOf(result);
  return text ? (text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}…` : text) : undefined;
}

function jsonOf(result: unknown): string | undefined {
  if (result === undefined || result === null) return undefined;
  if (typeof result === 'object' && Object.keys(result).length === 0) return undefined;
  return JSON.stringify(result, null, 2);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const stringIn = (data: Record<string, unknown>, key: string) =>
  typeof data[key] === 'string' && data[key] !== '' ? (data[key] as string) : undefined;

/** The review events of the audit log, oldest first (the log comes newest first). */
function reviewsOf(
  events: ResearchContextResult['recentAuditEvents'],
  orderOf: ReadonlyMap<string, number>,
): PlanViewReview[] {
  const reviews: PlanViewReview[] = [];
  for (const event of [...events].sort((a, b) => a.eventId - b.eventId)) {
    if (event.eventType !== 'user_reviewed' || !isRecord(event.eventData)) continue;
    const data = event.eventData;
    const stepOrder = event.stepId === undefined ? undefined : orderOf.get(event.stepId);
    if (data.action === 'review_requested')
      reviews.push({ kind: 'requested', at: event.createdAt, stepOrder, note: stringIn(data, 'summary') });
    else if (data.action === 'decision_submitted')
      reviews.push({
        kind: 'decided',
        at: event.createdAt,
        stepOrder,
        decision: stringIn(data, 'decision') ?? 'unknown',
        note: stringIn(data, 'feedback'),
      });
  }
  return reviews;
}

function bytes(size: number): string {
  if (size < 1024) return `${size} bytes`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}
