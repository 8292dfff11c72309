import { toolNames } from '@quarry/contracts';
import { type Caller, mayCall } from '../request-context.js';
import type { Tools } from '../tools/call.js';
import { invalidParams } from './arguments.js';
import { planSnapshotOf, type PlanSnapshot } from './plan-snapshot.js';

/** A plan as completion offers it. */
export interface PlanChoice {
  planId: string;
  name: string;
  researchQuestion: string;
}

/** An artifact as completion offers it. */
export interface ArtifactChoice {
  id: string;
  title: string;
}

/**
 * Reads for prompts and completions, through the same tools (and so the same rpcs, tenancy,
 * scopes and allowlist) the caller's model would use: what a prompt shows is what its credential
 * could read itself. Undefined when the credential may not call the tool.
 */
async function read(
  tools: Tools,
  tool: string,
  args: Record<string, unknown>,
  caller: Caller,
): Promise<{ data?: Record<string, unknown>; errorCode?: string } | undefined> {
  const definition = tools.catalogue.get(tool);
  if (!definition || !mayCall(caller.principal, definition)) return undefined;
  const outcome = await tools.call(tool, args, caller);
  const result = outcome.result;
  if (!result) throw new Error(`${tool} asked for sampling while a prompt read it`);
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (result.isError) return { errorCode: String((structured?.error as { code?: unknown } | undefined)?.code) };
  return { data: structured ?? {} };
}

/**
 * The plan's status as the plan-status tool gives it to this caller. A plan of another organization is
 * missing to the service, so it is refused here with the same words as one that never existed.
 */
export async function readPlan(tools: Tools, caller: Caller, planId: string): Promise<PlanSnapshot> {
  const answer = await read(tools, toolNames.getPlanStatus, { planId }, caller);
  if (!answer)
    throw invalidParams(
      `This credential may not read research plans (it needs the quarry:read scope and ${toolNames.getPlanStatus}).`,
    );
  if (answer.data) return planSnapshotOf(answer.data);
  if (answer.errorCode === 'PLAN_NOT_FOUND' || answer.errorCode === 'INVALID_ARGUMENT')
    throw invalidParams(`No research plan ${planId} in your organization; complete the planId argument to find one.`);
  throw new Error(`${toolNames.getPlanStatus} failed for a prompt: ${answer.errorCode}`);
}

/**
 * Up to `limit` of the caller's plans (archived ones too), most recently updated first; with
 * `query`, only those whose name or research question contains it.
 */
export async function findPlans(
  tools: Tools,
  caller: Caller,
  query: string | undefined,
  limit: number,
): Promise<PlanChoice[]> {
  const args = { includeArchived: true, limit, ...(query ? { query } : {}) };
  const answer = await read(tools, toolNames.listPlans, args, caller);
  const plans = answer?.data?.plans;
  return Array.isArray(plans) ? (plans as PlanChoice[]) : [];
}

/** Up to `limit` of the caller's most recent artifacts. */
export async function recentArtifacts(tools: Tools, caller: Caller, limit: number): Promise<ArtifactChoice[]> {
  const answer = await read(tools, toolNames.listArtifacts, { limit }, caller);
  const artifacts = answer?.data?.artifacts;
  return Array.isArray(artifacts) ? (artifacts as ArtifactChoice[]) : [];
}
