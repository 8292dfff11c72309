import { toolNames } from '@quarry/contracts';
import type { ResearchContextResult } from '@quarry/views';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { escapeHtml } from '../../http/html-document.js';
import { UNAVAILABLE } from '../shell/error-pages.js';
import type { WebShell } from '../shell/web-shell.js';
import { type OpenReview, openReviewsOf, reviewForm } from './review-form.js';
import { callTool, isId, isUnavailable } from './tool-call.js';

/** The most plans awaiting review the queue reads at once (toolNames.listPlans' largest page). */
const QUEUE_PLANS = 100;

type Form = Record<string, string | undefined>;

/**
 * The reviews from the browser: GET /app/reviews lists every step of the org awaiting the user's
 * decision (plans listed as awaiting_review, their steps and review requests read with
 * toolNames.getResearchContext); POST /app/reviews/decide records a decision with toolNames.submitUserDecision,
 * the tool a client calls (same validation, audit and plan change notification, so a client
 * waiting on the plan goes on).
 */
export function registerReviews(scope: FastifyInstance, shell: WebShell): void {
  scope.get<{ Querystring: { decided?: string } }>('/reviews', async (request, reply) => {
    const reviews = await openReviews(shell, request);
    if (!reviews) return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    const notice =
      request.query.decided === '1' ? '<p class="notice" role="status">Your decision is recorded.</p>' : '';
    return shell.page(request, reply, 200, {
      title: 'Reviews',
      body: queueBody(reviews, shell.viewer(request).csrf, notice),
    });
  });

  scope.post('/reviews/decide', async (request, reply) => {
    const form = (request.body ?? {}) as Form;
    const planId = form.planId ?? '';
    const stepId = form.stepId ?? '';
    if (!isId(planId) || !isId(stepId)) return shell.notFound(request, reply);
    const feedback = form.feedback?.trim();
    const answer = await callTool(shell, request, toolNames.submitUserDecision, {
      planId,
      stepId,
      decision: form.decision ?? '',
      ...(feedback ? { feedback } : {}),
    });
    if (answer.ok)
      return reply.redirect(form.back === 'plan' ? `/app/plans/${planId}?decided=1` : '/app/reviews?decided=1', 303);
    if (answer.code.endsWith('NOT_FOUND')) return shell.notFound(request, reply);
    if (isUnavailable(answer)) return shell.message(request, reply, 503, UNAVAILABLE.title, UNAVAILABLE.message);
    // The tool refused the decision (no feedback to request changes, the step no longer waiting):
    // the queue again, with its reason.
    const reviews = (await openReviews(shell, request)) ?? [];
    return shell.page(request, reply, 400, {
      title: 'Reviews',
      body: queueBody(
        reviews,
        shell.viewer(request).csrf,
        `<p class="error" role="alert">${escapeHtml(answer.message)}</p>`,
      ),
    });
  });
}

async function openReviews(shell: WebShell, request: FastifyRequest): Promise<OpenReview[] | undefined> {
  const listed = await callTool<{ plans: { planId: string; name: string }[] }>(shell, request, toolNames.listPlans, {
    status: 'awaiting_review',
    limit: QUEUE_PLANS,
  });
  if (!listed.ok) return undefined;
  const contexts = await Promise.all(
    listed.value.plans.map(async (plan) => {
      const context = await callTool<ResearchContextResult>(shell, request, toolNames.getResearchContext, {
        planId: plan.planId,
      });
      return context.ok ? openReviewsOf(plan.planId, plan.name, context.value) : [];
    }),
  );
  return contexts.flat();
}

function queueBody(reviews: readonly OpenReview[], csrf: string, notice: string): string {
  const list = reviews.length
    ? reviews.map((review) => reviewForm(review, csrf, 'reviews')).join('')
    : '<p class="muted">Nothing is waiting for your review.</p>';
  return `<h1>Reviews</h1>${notice}<p>Steps your research clients asked you to review. Your decision goes to the plan as if you had answered in the client, and the client waiting on it goes on.</p>${list}`;
}
