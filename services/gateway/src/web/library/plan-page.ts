import type { FastifyInstance } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { postForm } from './page-parts.js';
import { readPlan, type PlanRead } from './plan-sources.js';
import { openReviewsOf, reviewForm } from './review-form.js';
import { isId } from './tool-call.js';

/** How long a live request waits for the plan to change before it answers "no change" (toolNames.getPlanStatus allows 60). */
const LIVE_WAIT_SECONDS = 25;

const DONE: Readonly<Record<string, string>> = {
  decided: 'Your decision is recorded.',
  archived: 'The plan is archived: it is hidden from the plan lists unless you ask for archived plans.',
  unarchived: 'The plan is back in the plan lists.',
  cancelled: 'The plan is cancelled.',
};

/**
 * GET /app/plans/:id — a plan's page: the plan view of @quarry/views (steps, results, confidence,
 * reviews, artifacts, deliverables) and the timeline from its audit log, the decision form of
 * each step awaiting review, and its actions, all of it live. GET /app/plans/:id/live is what the
 * page's script long-polls: the live part again once it differs from the version the browser shows (waiting
 * with toolNames.getPlanStatus' waitSeconds, which the plan change feed wakes), 204 when nothing changed.
 */
export function registerPlanPage(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Params: { id: string }; Querystring: { done?: string; decided?: string } }>(
    '/plans/:id',
    async (request, reply) => {
      const planId = request.params.id;
      if (!isId(planId)) return shell.notFound(request, reply);
      const read = await readPlan(shell, request, planId);
      if ('missing' in read) return shell.notFound(request, reply);
      if ('unavailable' in read) return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
      const { found } = read;
      const csrf = shell.viewer(request).csrf;
      const done = DONE[request.query.decided === '1' ? 'decided' : (request.query.done ?? '')];
      const body = `${done ? `<p class="notice" role="status">${escapeHtml(done)}</p>` : ''}
<h1>${escapeHtml(found.status.name)}</h1>
<p id="live-status" class="muted" role="status">This page updates as the plan changes.</p>
<div id="plan-live" data-live-url="/app/plans/${escapeHtml(planId)}/live" data-version="${escapeHtml(found.version)}">${livePart(planId, found, csrf)}</div>`;
      return shell.page(request, reply, 200, {
        title: found.status.name,
        body,
        scripts: ['plan-live.js'],
        styles: ['views.css'],
      });
    },
  );

  scope.get<{ Params: { id: string }; Querystring: { v?: string } }>('/plans/:id/live', async (request, reply) => {
    const planId = request.params.id;
    if (!isId(planId)) return shell.notFound(request, reply);
    let read = await readPlan(shell, request, planId);
    if ('found' in read && read.found.version === request.query.v)
      read = await readPlan(shell, request, planId, {
        principal: read.found.principal,
        waitSeconds: LIVE_WAIT_SECONDS,
      });
    if ('missing' in read) return shell.notFound(request, reply);
    if ('unavailable' in read) return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    if (read.found.version === request.query.v) return reply.code(204).headers({ 'cache-control': 'no-store' }).send();
    return reply
      .code(200)
      .headers({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-plan-version': read.found.version,
      })
      .send(livePart(planId, read.found, shell.viewer(request).csrf));
  });
}

/**
 * What follows the plan as it changes: the archived notice, the plan view and its timeline, the
 * decision form of each step awaiting review and the actions the plan's state allows — so a
 * review requested while the page is open can be answered there, and a plan that finished stops
 * offering to be cancelled.
 */
function livePart(planId: string, found: PlanRead, csrf: string): string {
  const reviews = openReviewsOf(planId, found.status.name, found.context);
  return `${found.status.archived ? '<p class="notice" id="archived-status"><span class="badge">archived</span> This plan is archived: the plan lists show it only when asked for archived plans.</p>' : ''}
${found.live}
${reviews.length ? `<section aria-labelledby="reviews-heading"><h2 id="reviews-heading">Waiting for your review</h2>${reviews.map((review) => reviewForm(review, csrf, 'plan')).join('')}</section>` : ''}
${actions(planId, found.status, csrf)}`;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Archive or unarchive as the plan is (both when the service did not say), cancel while it runs,
 * delete. The services check the person's role and the plan's state either way.
 */
function actions(planId: string, plan: { status?: string; archived?: boolean }, csrf: string): string {
  const confirm = (action: string, label: string) =>
    `<a class="button secondary" href="/app/plans/${escapeHtml(planId)}/confirm/${action}">${escapeHtml(label)}</a>`;
  return `<section aria-labelledby="actions-heading"><h2 id="actions-heading">Actions</h2><div class="actions">
${plan.archived === true ? '' : confirm('archive', 'Archive…')}
${plan.archived === false ? '' : postForm(`/app/plans/${planId}/unarchive`, csrf, 'Unarchive', { button: 'secondary' })}
${plan.status && !TERMINAL.has(plan.status) ? confirm('cancel', 'Cancel plan…') : ''}
${confirm('delete', 'Delete plan…')}
</div></section>`;
}
