/** One step as the plan-status tool reports it. */
export interface StepSnapshot {
  stepId: string;
  stepOrder: number;
  stepType?: string;
  status?: string;
  instructions: string;
}

/** Where a plan stands, from the plan-status tool's structured result: what the prompts embed. */
export interface PlanSnapshot {
  planId: string;
  name: string;
  status?: string;
  stalled: boolean;
  progress: number;
  totalSteps: number;
  currentStep?: StepSnapshot;
  completedSteps: StepSnapshot[];
  pendingSteps: StepSnapshot[];
}

/** Reads the plan-status tool's structured content (already checked against its output schema). */
export function planSnapshotOf(structured: Record<string, unknown>): PlanSnapshot {
  const steps = (value: unknown) => (Array.isArray(value) ? (value as StepSnapshot[]) : []);
  return {
    planId: String(structured.planId),
    name: String(structured.name),
    status: typeof structured.status === 'string' ? structured.status : undefined,
    stalled: structured.stalled === true,
    progress: Number(structured.progress ?? 0),
    totalSteps: Number(structured.totalSteps ?? 0),
    currentStep: (structured.currentStep as StepSnapshot | undefined) ?? undefined,
    completedSteps: steps(structured.completedSteps),
    pendingSteps: steps(structured.pendingSteps),
  };
}
