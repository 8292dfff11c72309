// Browser code: the plan view's App, bundled into ui://quarry/plan-view (../view-bundle.ts).
import {
  type OutputEntry,
  planViewFrom,
  type PlanStatusResult,
  renderPlanView,
  type ResearchContextResult,
} from '@quarry/views';
import { notice, startView, ToolCallError, type ViewHost } from './view-host.js';
import { VIEW_TOOLS } from './view-tools.js';

/** How long one status call waits for a change (its long poll; the tool allows up to 60 s). */
const WAIT_SECONDS = 50;
/** How long the view waits before asking again after a failed call. */
const RETRY_MS = 5_000;
const FINISHED = new Set(['completed', 'failed', 'cancelled']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The plan view inside the chat. It learns the plan from the tool call it was opened for
 * (the planId of the plan-creating or plan-status tool), reads the plan's steps, results,
 * reviews, artifacts and deliverables through the host (Quarry's own tools, the user's token),
 * and stays live: the status tool with waitSeconds answers when the plan changes, and the view
 * re-renders. It stops when the plan is finished or the host tears the view down.
 */
let watched: string | undefined;
let stopped = false;

function planIdIn(value: unknown): string | undefined {
  return isRecord(value) && typeof value.planId === 'string' ? value.planId : undefined;
}

async function render(host: ViewHost, status: PlanStatusResult): Promise<void> {
  const { planId } = status;
  // The details are extras: a token that may not call one of these tools still sees the status.
  const [context, outputs] = await Promise.allSettled([
    host.call<ResearchContextResult>(VIEW_TOOLS.getResearchContext, { planId }),
    host.call<{ outputs: OutputEntry[] }>(VIEW_TOOLS.listResearchOutputs, { planId, limit: 50 }),
  ]);
  if (watched !== planId) return;
  host.show(
    renderPlanView(
      planViewFrom({
        status,
        context: context.status === 'fulfilled' ? context.value : undefined,
        outputs: outputs.status === 'fulfilled' ? outputs.value.outputs : undefined,
      }),
    ),
  );
}

async function watch(host: ViewHost, planId: string, first?: PlanStatusResult): Promise<void> {
  if (watched === planId) return;
  watched = planId;
  let shown = '';
  let status = first;
  while (!stopped && watched === planId) {
    try {
      status ??= await host.call<PlanStatusResult>(VIEW_TOOLS.getPlanStatus, { planId });
      const seen = JSON.stringify(status);
      if (seen !== shown) {
        shown = seen;
        await render(host, status);
      }
      if (FINISHED.has(status.derivedStatus ?? status.status ?? '')) return;
      status = await host.call<PlanStatusResult>(VIEW_TOOLS.getPlanStatus, { planId, waitSeconds: WAIT_SECONDS });
    } catch (error) {
      // A tool's refusal (no such plan, a scope the token lacks) stands; the host or the network
      // failing is retried.
      const refused = error instanceof ToolCallError;
      if (!shown || refused)
        host.show(notice(`Could not read the plan: ${error instanceof Error ? error.message : String(error)}`));
      if (refused) return;
      status = undefined;
      await sleep(RETRY_MS);
    }
  }
}

void startView('Quarry plan view', (host) => {
  host.show(notice('Loading the plan…'));
  host.app.ontoolinput = ({ arguments: args }) => {
    const planId = planIdIn(args);
    if (planId) void watch(host, planId);
  };
  host.app.ontoolresult = (result) => {
    const planId = planIdIn(result.structuredContent);
    if (!planId) return;
    // The status tool's own result is the first status to show; the creating tool's is not one.
    const content = result.structuredContent as unknown;
    const status =
      isRecord(content) && 'completedSteps' in content ? (content as unknown as PlanStatusResult) : undefined;
    void watch(host, planId, status);
  };
  host.app.onteardown = async () => {
    stopped = true;
    return {};
  };
});
