import { createHash } from 'node:crypto';
import { QuarryError, status } from '@quarry/grpc';
import type { Principal } from '@quarry/gateway';
import type {
  ArtifactRecord,
  ExtractionRecord,
  OutputRecord,
  PlanRecord,
  ResearchRecords,
  StepRecord,
} from './research-records.js';
import type { StubBackends, StubReply } from './stub-backend.js';

// The services' replies (proto3 JSON) to the tools the gateway's resources, prompts and
// completions read through, answered from research-records.ts as the services answer: only
// the caller's organization (another org's id is missing, with the same error), most recent
// first, `limit` and `cursor` honoured (a cursor these stubs did not make is INVALID_CURSOR), the
// plan list's `query` matched in name or question, long text in pages of `maxBytes`. Also the
// three tools that store what those reads then find (a plan, an artifact, a deliverable).

type Request = Record<string, unknown>;
type Reply = Awaited<ReturnType<StubReply>>;

const BINARY_MIME_TYPES: Record<string, string> = {
  word: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  powerpoint: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};
const TEXT_MIME_TYPES: Record<string, string> = {
  conversation: 'text/plain; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
};
const mimeTypeOf = (mediaType: string) => BINARY_MIME_TYPES[mediaType] ?? TEXT_MIME_TYPES[mediaType]!;

/** `planning` → `PLAN_STATUS_PLANNING`, and back. */
const toEnum = (prefix: string, value: string) => `${prefix}_${value.toUpperCase()}`;
const fromEnum = (prefix: string, value: unknown) =>
  String(value)
    .slice(prefix.length + 1)
    .toLowerCase();

const invalidCursor = () =>
  new QuarryError('INVALID_CURSOR', status.INVALID_ARGUMENT, '`cursor` is not one this tool returned.');
/** A missing id, another org's id alike: the services' NOT_FOUND. */
function missing(code: string, id: unknown): never {
  throw new QuarryError(code, status.NOT_FOUND, `${code}: nothing with the id ${String(id)} in your organization.`);
}

/** A page of `items` at the request's cursor (`kind@offset`, as this stub made it) and limit, and the next cursor. */
function page<T>(items: T[], request: Request, kind: string): [T[], { nextCursor?: string }] {
  const limit = Number(request.limit ?? 20);
  let offset = 0;
  if (request.cursor !== undefined) {
    const match = /^(\w+)@(\d+)$/.exec(String(request.cursor));
    if (!match || match[1] !== kind) throw invalidCursor();
    offset = Number(match[2]);
  }
  const end = offset + limit;
  return [items.slice(offset, end), end < items.length ? { nextCursor: `${kind}@${end}` } : {}];
}

/** A page of long text: at most `maxBytes` of UTF-8 from the cursor (`id@offset`) on, never inside a character. */
function textPage(text: string, id: string, request: Request) {
  const bytes = Buffer.from(text);
  let offset = 0;
  if (request.cursor !== undefined) {
    const match = /^(.+)@(\d+)$/.exec(String(request.cursor));
    if (!match || match[1] !== id || Number(match[2]) > bytes.length) throw invalidCursor();
    offset = Number(match[2]);
  }
  let end = Math.min(bytes.length, offset + Number(request.maxBytes ?? 262_144));
  while (end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  const nextCursor = end < bytes.length ? { nextCursor: `${id}@${end}` } : {};
  const returned = bytes.subarray(offset, end).toString();
  return { text: returned, page: { totalBytes: bytes.length, offset, returnedBytes: end - offset, ...nextCursor } };
}

const newestFirst = <T extends { createdAt: string; updatedAt?: string }>(items: T[]) =>
  [...items].sort((a, b) => (b.updatedAt ?? b.createdAt).localeCompare(a.updatedAt ?? a.createdAt));

function stepJson(step: StepRecord) {
  return {
    stepId: step.stepId,
    stepOrder: step.stepOrder,
    stepType: toEnum('STEP_TYPE', step.stepType),
    status: toEnum('STEP_STATUS', step.status),
    instructions: step.instructions,
    ...(step.confidence !== undefined ? { confidence: step.confidence } : {}),
  };
}

const progressOf = (plan: PlanRecord) =>
  (100 * plan.steps.filter((s) => s.status === 'completed' || s.status === 'skipped').length) / plan.steps.length;

export function planStatus(plan: PlanRecord) {
  const current = plan.steps.find((s) => s.status === 'in_progress' || s.status === 'awaiting_input');
  return {
    planId: plan.planId,
    name: plan.name,
    status: toEnum('PLAN_STATUS', plan.status),
    derivedStatus: toEnum('PLAN_STATUS', plan.status),
    progress: progressOf(plan),
    totalSteps: plan.steps.length,
    ...(current ? { currentStep: stepJson(current) } : {}),
    completedSteps: plan.steps.filter((s) => s.status === 'completed' || s.status === 'skipped').map(stepJson),
    pendingSteps: plan.steps.filter((s) => s.status === 'pending').map(stepJson),
  };
}

const planListing = (plan: PlanRecord) => ({
  planId: plan.planId,
  name: plan.name,
  researchQuestion: plan.researchQuestion,
  status: toEnum('PLAN_STATUS', plan.status),
  progress: progressOf(plan),
  totalSteps: plan.steps.length,
  completedSteps: plan.steps.filter((s) => s.status === 'completed').length,
  createdAt: plan.createdAt,
  updatedAt: plan.updatedAt,
});

const artifactSummary = (a: ArtifactRecord) => ({
  id: a.id,
  artifactType: toEnum('ARTIFACT_TYPE', a.artifactType),
  title: a.title,
  tags: a.tags,
  ...(a.planId ? { planId: a.planId } : {}),
  source: 'ARTIFACT_SOURCE_CLIENT',
  createdAt: a.createdAt,
  url: `quarry://artifacts/${a.id}`,
});

const outputSummary = (o: OutputRecord) => ({
  outputId: o.outputId,
  planId: o.planId,
  mediaType: toEnum('MEDIA_TYPE', o.mediaType),
  mimeType: mimeTypeOf(o.mediaType),
  title: o.title,
  sizeBytes: bytesOf(o).length,
  createdAt: o.createdAt,
  url: `quarry://outputs/${o.outputId}`,
});

const bytesOf = (o: OutputRecord) => Buffer.from(o.content, BINARY_MIME_TYPES[o.mediaType] ? 'base64' : 'utf8');

function extraction(e: ExtractionRecord, request: Request) {
  const { text, page: where } = textPage(e.sourceText, e.id, request);
  return {
    id: e.id,
    data: e.data,
    overallConfidence: 1,
    provider: 'heuristic',
    model: 'heuristic',
    extractionSchema: e.extractionSchema,
    schemaHash: createHash('sha256').update(JSON.stringify(e.extractionSchema)).digest('hex'),
    schemaVersion: 1,
    sourceText: text,
    page: where,
    createdAt: e.createdAt,
    url: `quarry://extractions/${e.id}`,
  };
}

/** Sets the stub's replies for the research tools over `records`. */
export function answerResearchTools(stub: StubBackends, records: ResearchRecords): void {
  const ours = <T extends { orgId: string }>(items: T[], principal: Principal) =>
    items.filter((item) => item.orgId === principal.orgId);
  const one = <T extends { orgId: string }>(items: T[], principal: Principal, found: (item: T) => boolean) =>
    ours(items, principal).find(found);
  const reply = (tool: string, answer: (request: Request, principal: Principal) => unknown) =>
    stub.reply(tool, (request, { principal }) => answer(request, principal) as Reply);
  const planOf = (request: Request, principal: Principal) =>
    one(records.plans, principal, (p) => p.planId === request.planId) ?? missing('PLAN_NOT_FOUND', request.planId);

  reply('list_plans', (request, principal) => {
    const query = typeof request.query === 'string' ? request.query.toLowerCase() : undefined;
    const matching = ours(records.plans, principal).filter(
      (p) => !query || `${p.name}\n${p.researchQuestion}`.toLowerCase().includes(query),
    );
    const [shown, next] = page(newestFirst(matching), request, 'plans');
    return { plans: shown.map(planListing), ...next };
  });
  reply('get_plan_status', (request, principal) => planStatus(planOf(request, principal)));
  reply('get_research_context', (request, principal) => {
    const plan = planOf(request, principal);
    return {
      plan: {
        id: plan.planId,
        name: plan.name,
        researchQuestion: plan.researchQuestion,
        status: toEnum('PLAN_STATUS', plan.status),
        progress: progressOf(plan),
        totalSteps: plan.steps.length,
        createdAt: plan.createdAt,
        updatedAt: plan.updatedAt,
      },
      steps: plan.steps.map((step) => ({ ...stepJson(step), ...(step.result ? { result: step.result } : {}) })),
      artifacts: ours(records.artifacts, principal)
        .filter((a) => a.planId === plan.planId)
        .map((a) => ({ id: a.id, artifactType: a.artifactType, title: a.title, createdAt: a.createdAt })),
    };
  });
  reply('list_artifacts', (request, principal) => {
    const [shown, next] = page(newestFirst(ours(records.artifacts, principal)), request, 'artifacts');
    return { artifacts: shown.map(artifactSummary), ...next };
  });
  reply('get_artifact', (request, principal) => {
    const artifact =
      one(records.artifacts, principal, (a) => a.id === request.id) ?? missing('ARTIFACT_NOT_FOUND', request.id);
    const text = artifact.contentText === undefined ? undefined : textPage(artifact.contentText, artifact.id, request);
    return {
      ...artifactSummary(artifact),
      content: artifact.content,
      contentBytes: Buffer.byteLength(JSON.stringify(artifact.content)),
      ...(text ? { contentText: text.text, page: text.page } : {}),
      ...(artifact.instructionFlags ? { instructionFlags: artifact.instructionFlags } : {}),
    };
  });
  reply('list_research_outputs', (request, principal) => {
    const mine = ours(records.outputs, principal).filter((o) => !request.planId || o.planId === request.planId);
    const [shown, next] = page(newestFirst(mine), request, 'outputs');
    return { outputs: shown.map(outputSummary), ...next };
  });
  reply('get_research_output', (request, principal) => {
    const output =
      one(records.outputs, principal, (o) => o.outputId === request.outputId) ??
      missing('OUTPUT_NOT_FOUND', request.outputId);
    const summary = outputSummary(output);
    const sha256 = createHash('sha256').update(bytesOf(output)).digest('hex');
    if (BINARY_MIME_TYPES[output.mediaType])
      return { ...summary, sha256, document: { uri: summary.url, mimeType: summary.mimeType, blob: output.content } };
    const { text, page: where } = textPage(output.content, output.outputId, request);
    return { ...summary, sha256, content: text, page: where };
  });
  reply('get_extraction', (request, principal) => {
    const found =
      one(records.extractions, principal, (e) => e.id === request.id) ?? missing('EXTRACTION_NOT_FOUND', request.id);
    return extraction(found, request);
  });

  reply('create_research_plan', (request, principal) => {
    const steps = (request.steps as Request[]).map(
      (s) => [fromEnum('STEP_TYPE', s.stepType), String(s.instructions)] as [string, string],
    );
    const plan = records.addPlan(principal.orgId, {
      name: String(request.name),
      researchQuestion: String(request.researchQuestion),
      steps,
    });
    const first = plan.steps[0]!;
    return {
      planId: plan.planId,
      name: plan.name,
      researchQuestion: plan.researchQuestion,
      stepCount: plan.steps.length,
      firstStep: {
        stepId: first.stepId,
        stepType: toEnum('STEP_TYPE', first.stepType),
        instructions: first.instructions,
      },
    };
  });
  reply('store_research', (request, principal) => {
    const artifact = records.addArtifact(principal.orgId, {
      artifactType: fromEnum('ARTIFACT_TYPE', request.artifactType),
      title: String(request.title),
      content: request.content as Record<string, unknown>,
      ...(typeof request.contentText === 'string' ? { contentText: request.contentText } : {}),
      ...(typeof request.planId === 'string' ? { planId: request.planId } : {}),
      tags: (request.tags ?? []) as string[],
    });
    return { id: artifact.id, artifactType: request.artifactType as string, title: artifact.title, stored: true };
  });
  reply('store_research_output', (request, principal) => {
    const output = records.addOutput(principal.orgId, {
      planId: String(request.planId),
      mediaType: fromEnum('MEDIA_TYPE', request.mediaType),
      title: String(request.title),
      content: String(request.content),
    });
    return { outputId: output.outputId, mediaType: request.mediaType as string, title: output.title, stored: true };
  });
}
