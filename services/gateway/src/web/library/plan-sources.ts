import { createHash } from 'node:crypto';
import { toolNames } from '@quarry/contracts';
import {
  type OutputEntry,
  type PlanStatusResult,
  planViewFrom,
  renderPlanView,
  type ResearchContextResult,
} from '@quarry/views';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../../identity/schema.js';
import type { WebShell } from '../shell/web-shell.js';
import { renderTimeline } from './plan-timeline.js';
import { callTool, readInAnyOrg } from './tool-call.js';

/** Where the views link stored items: their app pages. */
export const APP_LINKS = {
  artifact: (id: string) => `/app/artifacts/${id}`,
  output: (id: string) => `/app/outputs/${id}`,
};

/** A plan as its page shows it: what the tools said, the rendered live part, and its version. */
export interface PlanRead {
  principal: Principal;
  status: PlanStatusResult & { archived?: boolean };
  context: ResearchContextResult;
  /** The part of the page that updates live: the plan view and the timeline (HTML). */
  live: string;
  /** A short hash of `live`: a browser showing this version is told only of a newer one. */
  version: string;
}

export type PlanReadOutcome = { found: PlanRead } | { missing: true } | { unavailable: true };

/**
 * Reads a plan for its page with the tools a client uses: toolNames.getPlanStatus (optionally waiting
 * up to `waitSeconds` for a change), toolNames.getResearchContext (results, artifacts, the latest audit
 * events; read without a session id, so it writes nothing) and toolNames.listResearchOutputs. Tried in
 * each of the person's orgs (or only as `principal`); another org's plan is missing.
 */
export async function readPlan(
  shell: WebShell,
  request: FastifyRequest,
  planId: string,
  options: { principal?: Principal; waitSeconds?: number } = {},
): Promise<PlanReadOutcome> {
  const statusArgs = { planId, ...(options.waitSeconds ? { waitSeconds: options.waitSeconds } : {}) };
  const first = options.principal
    ? {
        answer: await callTool<PlanStatusResult>(
          shell,
          request,
          toolNames.getPlanStatus,
          statusArgs,
          options.principal,
        ),
        principal: options.principal,
      }
    : await readInAnyOrg<PlanStatusResult>(shell, request, toolNames.getPlanStatus, statusArgs);
  const { principal } = first;
  if (!first.answer.ok) return missingOrUnavailable(first.answer.code);
  const [context, outputs] = await Promise.all([
    callTool<ResearchContextResult>(shell, request, toolNames.getResearchContext, { planId }, principal),
    callTool<{ outputs: OutputEntry[] }>(
      shell,
      request,
      toolNames.listResearchOutputs,
      { planId, limit: 100 },
      principal,
    ),
  ]);
  if (!context.ok) return missingOrUnavailable(context.code);
  const view = planViewFrom(
    { status: first.answer.value, context: context.value, outputs: outputs.ok ? outputs.value.outputs : [] },
    APP_LINKS,
  );
  const live = renderPlanView(view) + renderTimeline(context.value, view.steps);
  return {
    found: {
      principal,
      status: first.answer.value,
      context: context.value,
      live,
      version: createHash('sha256').update(live).digest('base64url').slice(0, 16),
    },
  };
}

function missingOrUnavailable(code: string): PlanReadOutcome {
  return code.endsWith('NOT_FOUND') || code === 'INVALID_ARGUMENT' ? { missing: true } : { unavailable: true };
}
