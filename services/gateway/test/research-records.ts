import { randomUUID } from 'node:crypto';

// What the stub services behind a gateway test hold: each organization's plans (with their
// steps), artifacts, deliverables and extractions, in memory, on a clock that ticks a second per
// change so "most recent first" is exact. research-replies.ts answers the tools' rpcs from it.
// Enum values are kept as the tools spell them (`planning`, `search`, `markdown`).

export interface StepRecord {
  stepId: string;
  stepOrder: number;
  stepType: string;
  status: 'pending' | 'in_progress' | 'awaiting_input' | 'completed' | 'skipped' | 'failed';
  instructions: string;
  result?: Record<string, unknown>;
  confidence?: number;
}

export interface PlanRecord {
  orgId: string;
  planId: string;
  name: string;
  researchQuestion: string;
  status: string;
  steps: StepRecord[];
  createdAt: string;
  updatedAt: string;
}

export interface ArtifactRecord {
  orgId: string;
  id: string;
  artifactType: string;
  title: string;
  content: Record<string, unknown>;
  contentText?: string;
  tags: string[];
  planId?: string;
  createdAt: string;
  /** What the artifact store's scanner found (docs/adr/0062-instruction-flags.md), in proto3 JSON. */
  instructionFlags?: { kind: string; excerpt: string; start?: number; end?: number }[];
}

export interface OutputRecord {
  orgId: string;
  outputId: string;
  planId: string;
  mediaType: string;
  title: string;
  /** The text, or a binary document's bytes base64-encoded (as store_research_output takes it). */
  content: string;
  createdAt: string;
}

export interface ExtractionRecord {
  orgId: string;
  id: string;
  data: Record<string, unknown>;
  extractionSchema: Record<string, unknown>;
  sourceText: string;
  createdAt: string;
}

export interface NewPlan {
  name: string;
  researchQuestion?: string;
  /** Each step's type and instructions, in order. */
  steps?: Array<[stepType: string, instructions: string]>;
}

export type ResearchRecords = ReturnType<typeof researchRecords>;

/** An empty store; each `add…` returns the record it stored, owned by the organization `orgId`. */
export function researchRecords() {
  let clock = Date.parse('2026-03-02T09:00:00.000Z');
  const now = () => new Date((clock += 1000)).toISOString();
  const plans: PlanRecord[] = [];
  const artifacts: ArtifactRecord[] = [];
  const outputs: OutputRecord[] = [];
  const extractions: ExtractionRecord[] = [];
  const add = <T>(list: T[], record: T) => (list.push(record), record);
  const changed = (plan: PlanRecord, status: string) => {
    plan.status = status;
    plan.updatedAt = now();
  };

  return {
    plans,
    artifacts,
    outputs,
    extractions,
    addPlan(orgId: string, { name, researchQuestion, steps = [['search', 'Find the sources.']] }: NewPlan) {
      const at = now();
      return add(plans, {
        orgId,
        planId: randomUUID(),
        name,
        researchQuestion: researchQuestion ?? `What does ${name} find?`,
        status: 'planning',
        steps: steps.map(([stepType, instructions], i) => ({
          stepId: randomUUID(),
          stepOrder: i + 1,
          stepType,
          status: 'pending' as const,
          instructions,
        })),
        createdAt: at,
        updatedAt: at,
      });
    },
    /** The step of this order completed with a result (the plan changes with it). */
    completeStep(plan: PlanRecord, stepOrder: number, result: Record<string, unknown>, confidence: number) {
      Object.assign(plan.steps[stepOrder - 1]!, { status: 'completed', result, confidence });
      changed(plan, plan.steps.every((s) => s.status === 'completed') ? 'completed' : 'executing');
    },
    /** The step of this order claimed and put up for the user's review. */
    awaitReview(plan: PlanRecord, stepOrder: number) {
      plan.steps[stepOrder - 1]!.status = 'awaiting_input';
      changed(plan, 'awaiting_review');
    },
    addArtifact(
      orgId: string,
      artifact: Omit<ArtifactRecord, 'orgId' | 'id' | 'createdAt' | 'tags'> & { tags?: string[] },
    ) {
      return add(artifacts, { tags: [], ...artifact, orgId, id: randomUUID(), createdAt: now() });
    },
    addOutput(orgId: string, output: Omit<OutputRecord, 'orgId' | 'outputId' | 'createdAt'>) {
      return add(outputs, { ...output, orgId, outputId: randomUUID(), createdAt: now() });
    },
    addExtraction(orgId: string, extraction: Omit<ExtractionRecord, 'orgId' | 'id' | 'createdAt'>) {
      return add(extractions, { ...extraction, orgId, id: randomUUID(), createdAt: now() });
    },
  };
}
