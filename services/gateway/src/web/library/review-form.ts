import type { ResearchContextResult } from '@quarry/views';
import { escapeHtml } from '../../http/html-document.js';
import { hidden } from './page-parts.js';

/** A step waiting for the user's decision, with what the client asked them to review. */
export interface OpenReview {
  planId: string;
  planName: string;
  stepId: string;
  stepOrder: number;
  instructions: string;
  summary?: string;
  questions: string[];
}

/** The steps of a plan awaiting a decision, each with the latest review request for it. */
export function openReviewsOf(planId: string, planName: string, context: ResearchContextResult): OpenReview[] {
  const requests = new Map<string, { summary?: string; questions: string[] }>();
  for (const event of [...context.recentAuditEvents].sort((a, b) => a.eventId - b.eventId)) {
    const data = event.eventData as Record<string, unknown> | undefined;
    if (event.eventType !== 'user_reviewed' || !event.stepId || data?.action !== 'review_requested') continue;
    requests.set(event.stepId, {
      summary: typeof data.summary === 'string' ? data.summary : undefined,
      questions: Array.isArray(data.questions) ? data.questions.filter((q): q is string => typeof q === 'string') : [],
    });
  }
  return context.steps
    .filter((step) => step.status === 'awaiting_input')
    .map((step) => ({
      planId,
      planName,
      stepId: step.stepId,
      stepOrder: step.stepOrder,
      instructions: step.instructions,
      questions: [],
      ...requests.get(step.stepId),
    }));
}

/**
 * A review and its decision form: approve, reject or request changes (toolNames.submitUserDecision's
 * approve, reject and modify), with feedback (required to request changes, as the tool says).
 * `back` is where the person returns after deciding.
 */
export function reviewForm(review: OpenReview, csrf: string, back: 'plan' | 'reviews', error?: string): string {
  const id = `r-${review.stepId}`;
  const questions = review.questions.length
    ? `<p>Questions:</p><ul>${review.questions.map((q) => `<li>${escapeHtml(q)}</li>`).join('')}</ul>`
    : '';
  const decisions = [
    ['approve', 'Approve: the step is done'],
    ['modify', 'Request changes: the step is redone with your feedback'],
    ['reject', 'Reject: the step and the plan fail'],
  ]
    .map(
      ([value, label], i) =>
        `<label class="check"><input type="radio" name="decision" value="${value}"${i === 0 ? ' checked' : ''}> ${escapeHtml(label!)}</label>`,
    )
    .join('');
  return `<article class="review" aria-labelledby="${id}-h">
<h3 id="${id}-h">Step ${review.stepOrder} of <a href="/app/plans/${escapeHtml(review.planId)}">${escapeHtml(review.planName)}</a></h3>
<p class="muted">${escapeHtml(review.instructions.length > 600 ? `${review.instructions.slice(0, 600)}…` : review.instructions)}</p>
${review.summary ? `<p>${escapeHtml(review.summary)}</p>` : ''}${questions}
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/app/reviews/decide">
${hidden('csrf', csrf)}${hidden('planId', review.planId)}${hidden('stepId', review.stepId)}${hidden('back', back)}
<fieldset><legend>Your decision</legend>${decisions}</fieldset>
<label for="${id}-feedback">Feedback</label>
<textarea id="${id}-feedback" name="feedback" maxlength="10000"></textarea>
<button type="submit">Submit decision</button>
</form>
</article>`;
}
