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
import { callTool, readInAnyOrg, type ToolAnswer } from './tool-call.js';

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
  /** A short hash of `live` and the archived flag: a browser showing this version is told only of a newer one. */
  version: string;
}

export type PlanReadOutcome = { found: PlanRead } | { missing: true } | { unavailable: true };

/**
 * Reads a plan for its page with the tools a client uses: toolNames.getPlanStatus (optionally waiting
 * up to `waitSeconds` for a change), toolNames.getResearchContext (results, artifacts, the latest audit
 * events; read without a session id, so it writes nothing) and toolNames.listResearchOutputs. Tried in
 * each of the person's orgs (or only as `principal`); another org's plan is missing.
 *
 * Without a wait the three calls go out together as the org the person works in (or `principal`):
 * a plan page is three reads of one plan, and in turn they cost the sum of three round trips. Only
 * when that org does not hold the plan are the person's other orgs tried, status first. A wait
 * reads the rest after the status answers, so they show the change it waited for.
 */
export async function readPlan(
  shell: WebShell,
  request: FastifyRequest,
  planId: string,
  options: { principal?: Principal; waitSeconds?: number } = {},
): Promise<PlanReadOutcome> {
  if (options.waitSeconds) {
    const statusArgs = { planId, waitSeconds: options.waitSeconds };
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
    if (!first.answer.ok) return missingOrUnavailable(first.answer.code);
    return readRest(shell, request, planId, first.principal, first.answer.value);
  }
  const principal = options.principal ?? shell.viewer(request).principal;
  const together = await readAll(shell, request, planId, principal);
  const many = !options.principal && shell.viewer(request).user.orgs.length > 1;
  if (!('missing' in together) || !many) return together;
  const elsewhere = await readInAnyOrg<PlanStatusResult>(shell, request, toolNames.getPlanStatus, { planId });
  if (!elsewhere.answer.ok) return missingOrUnavailable(elsewhere.answer.code);
  return readRest(shell, request, planId, elsewhere.principal, elsewhere.answer.value);
}

/** The three reads at once, as `principal`. */
async function readAll(
  shell: WebShell,
  request: FastifyRequest,
  planId: string,
  principal: Principal,
): Promise<PlanReadOutcome> {
  const [status, context, outputs] = await Promise.all([
    callTool<PlanStatusResult>(shell, request, toolNames.getPlanStatus, { planId }, principal),
    readContext(shell, request, planId, principal),
    readOutputs(shell, request, planId, principal),
  ]);
  if (!status.ok) return missingOrUnavailable(status.code);
  return planRead(principal, status.value, context, outputs);
}

/** The context and the deliverables of a plan whose status `principal` has read. */
async function readRest(
  shell: WebShell,
  request: FastifyRequest,
  planId: string,
  principal: Principal,
  status: PlanStatusResult,
): Promise<PlanReadOutcome> {
  const [context, outputs] = await Promise.all([
    readContext(shell, request, planId, principal),
    readOutputs(shell, request, planId, principal),
  ]);
  return planRead(principal, status, context, outputs);
}

const readContext = (shell: WebShell, request: FastifyRequest, planId: string, principal: Principal) =>
  callTool<ResearchContextResult>(shell, request, toolNames.getResearchContext, { planId }, principal);

const readOutputs = (shell: WebShell, request: FastifyRequest, planId: string, principal: Principal) =>
  callTool<{ outputs: OutputEntry[] }>(
    shell,
    request,
    toolNames.listResearchOutputs,
    { planId, limit: 100 },
    principal,
  );

function planRead(
  principal: Principal,
  status: PlanStatusResult & { archived?: boolean },
  context: ToolAnswer<ResearchContextResult>,
  outputs: ToolAnswer<{ outputs: OutputEntry[] }>,
): PlanReadOutcome {
  if (!context.ok) return missingOrUnavailable(context.code);
  const view = planViewFrom(
    { status, context: context.value, outputs: outputs.ok ? outputs.value.outputs : [] },
    APP_LINKS,
  );
  const live = renderPlanView(view) + renderTimeline(context.value, view.steps);
  return {
    found: {
      principal,
      status,
      context: context.value,
      live,
      // Archiving changes no part of the view, yet the page shows it (and what undoes it).
      version: createHash('sha256')
        .update(status.archived ? `${live}\u0000archived` : live)
        .digest('base64url')
        .slice(0, 16),
    },
  };
}

function missingOrUnavailable(code: string): PlanReadOutcome {
  return code.endsWith('NOT_FOUND') || code === 'INVALID_ARGUMENT' ? { missing: true } : { unavailable: true };
}
