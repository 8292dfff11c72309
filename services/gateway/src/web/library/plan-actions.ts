import { toolNames } from '@quarry/contracts';
import type { PlanStatusResult } from '@quarry/views';
import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { hidden } from './page-parts.js';
import { callTool, isId, isMissing, isUnavailable, readInAnyOrg } from './tool-call.js';

type Action = 'archive' | 'unarchive' | 'cancel' | 'delete';

/** Each action: its tool, what its confirmation page says, and where the person lands after it. */
const ACTIONS: Readonly<
  Record<Action, { tool: string; confirm?: { title: string; says: string; button: string }; done: string }>
> = {
  archive: {
    tool: toolNames.archivePlan,
    confirm: {
      title: 'Archive this plan?',
      says: 'It is hidden from the plan lists (unless you ask for archived plans). Everything stays readable and searchable, and you can unarchive it.',
      button: 'Archive plan',
    },
    done: '?done=archived',
  },
  unarchive: { tool: toolNames.unarchivePlan, done: '?done=unarchived' },
  cancel: {
    tool: toolNames.cancelPlan,
    confirm: {
      title: 'Cancel this plan?',
      says: 'It stops for good: no more steps are handed out and nothing more can be submitted. What it produced stays readable. Your reason goes to its audit log.',
      button: 'Cancel plan',
    },
    done: '?done=cancelled',
  },
  delete: {
    tool: toolNames.deletePlan,
    confirm: {
      title: 'Delete this plan for good?',
      says: 'The plan and everything it produced (steps, results, reviews, audit trail, artifacts, deliverables, extractions, their search entries) are deleted. This cannot be undone.',
      button: 'Delete plan and everything it produced',
    },
    done: '',
  },
};

const isAction = (value: string): value is Action => Object.hasOwn(ACTIONS, value);

/**
 * A plan's actions, each the tool a client calls with the person's principal (the services check
 * the state, the role and write the audit log as for any call): GET /app/plans/:id/confirm/:action
 * asks first (archive, cancel, delete), and only its form — carrying `confirmed` and the form
 * token — performs it with POST /app/plans/:id/:action. Unarchive needs no confirmation.
 */
export function registerPlanActions(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Params: { id: string; action: string } }>('/plans/:id/confirm/:action', async (request, reply) => {
    const { id: planId, action } = request.params;
    const confirm = isAction(action) ? ACTIONS[action].confirm : undefined;
    if (!confirm || !isId(planId)) return shell.notFound(request, reply);
    const { answer } = await readInAnyOrg<PlanStatusResult>(shell, request, toolNames.getPlanStatus, { planId });
    if (!answer.ok)
      return isMissing(answer)
        ? shell.notFound(request, reply)
        : shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    const reason =
      action === 'cancel'
        ? '<label for="reason">Why (recorded in the audit log)</label><textarea id="reason" name="reason" required maxlength="2000"></textarea>'
        : '';
    const body = `<h1>${escapeHtml(confirm.title)}</h1>
<p><strong>${escapeHtml(answer.value.name)}</strong></p>
<p>${escapeHtml(confirm.says)}</p>
<form method="post" action="/app/plans/${escapeHtml(planId)}/${action}">
${hidden('csrf', shell.viewer(request).csrf)}${hidden('confirmed', '1')}${reason}
<div class="actions"><button type="submit" class="${action === 'archive' ? '' : 'danger'}">${escapeHtml(confirm.button)}</button>
<a href="/app/plans/${escapeHtml(planId)}">Keep it as it is</a></div>
</form>`;
    return shell.page(request, reply, 200, { title: confirm.title, body });
  });

  scope.post<{ Params: { id: string; action: string } }>('/plans/:id/:action', async (request, reply) => {
    const { id: planId, action } = request.params;
    if (!isAction(action) || !isId(planId)) return shell.notFound(request, reply);
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const { tool, confirm, done } = ACTIONS[action];
    if (confirm && form.confirmed !== '1') return reply.redirect(`/app/plans/${planId}/confirm/${action}`, 303);
    // The plan's org: whichever of the person's holds it (another org's plan is missing).
    const found = await readInAnyOrg<PlanStatusResult>(shell, request, toolNames.getPlanStatus, { planId });
    if (!found.answer.ok)
      return isMissing(found.answer)
        ? shell.notFound(request, reply)
        : shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    const reason = form.reason?.trim();
    const answer = await callTool(
      shell,
      request,
      tool,
      { planId, ...(action === 'cancel' && reason ? { reason } : {}) },
      found.principal,
    );
    if (answer.ok)
      return reply.redirect(action === 'delete' ? '/app/plans?deleted=1' : `/app/plans/${planId}${done}`, 303);
    if (isUnavailable(answer)) return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    return shell.message(request, reply, 409, 'Not done', answer.message);
  });
}
