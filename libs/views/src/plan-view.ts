import { clip, link, round, text, time, token } from './html.js';
import type { PlanView, PlanViewItem, PlanViewReview, PlanViewStep } from './plan-model.js';

/** How much of a step's instructions the view shows before "…". */
const INSTRUCTIONS_CHARS = 600;

/**
 * The plan view as an HTML fragment: the plan's name, status and progress, its steps (status,
 * confidence, result), its reviews, artifacts and deliverables. Every stored string is escaped
 * and every link checked (html.ts), so hostile research renders as text. No inline style or
 * script: the page's stylesheet (VIEWS_CSS) styles it by class, and `data-plan-id` lets a script
 * find the view to re-render it.
 */
export function renderPlanView(plan: PlanView): string {
  const status = plan.stalled ? 'stalled' : (plan.status ?? 'unknown');
  const progress = Math.max(0, Math.min(100, round(plan.progress)));
  const question = plan.researchQuestion ? `<p class="q-question">${text(plan.researchQuestion)}</p>` : '';
  const updated = plan.updatedAt ? ` <span class="q-muted">· updated ${time(plan.updatedAt)}</span>` : '';
  return [
    `<section class="q-view q-plan" data-plan-id="${text(plan.planId)}" aria-labelledby="q-plan-${token(plan.planId)}">`,
    `<header class="q-head"><h2 id="q-plan-${token(plan.planId)}">${text(plan.name)}</h2>${question}`,
    `<p class="q-status-line"><span class="q-badge q-status-${token(status)}">${text(status.replace(/_/g, ' '))}</span>`,
    ` <span>${progress}% of ${plan.totalSteps} step${plan.totalSteps === 1 ? '' : 's'} done</span>${updated}</p>`,
    `<progress class="q-progress" max="100" value="${progress}" aria-label="Progress">${progress}%</progress></header>`,
    section(
      'Steps',
      plan.steps.length ? `<ol class="q-steps">${plan.steps.map(stepItem).join('')}</ol>` : none('No steps.'),
    ),
    plan.reviews.length
      ? section('Reviews', `<ul class="q-reviews">${plan.reviews.map(reviewItem).join('')}</ul>`)
      : '',
    section('Artifacts', items(plan.artifacts, 'None stored yet.')),
    section('Deliverables', items(plan.deliverables, 'None delivered yet.')),
    '</section>',
  ].join('');
}

const section = (title: string, body: string) => `<section class="q-part"><h3>${text(title)}</h3>${body}</section>`;
const none = (message: string) => `<p class="q-muted">${text(message)}</p>`;

function stepItem(step: PlanViewStep): string {
  const status = step.status ?? 'pending';
  const facts = [
    step.stepType ? `<span class="q-type">${text(step.stepType)}</span>` : '',
    `<span class="q-badge q-status-${token(status)}">${text(status.replace(/_/g, ' '))}</span>`,
    step.current ? '<span class="q-badge q-current">current</span>' : '',
    step.confidence !== undefined ? `<span class="q-confidence">confidence ${round(step.confidence, 2)}</span>` : '',
    step.completedAt ? `<span class="q-muted">${time(step.completedAt)}</span>` : '',
  ].filter(Boolean);
  return [
    `<li class="q-step q-step-${token(status)}" data-step-id="${text(step.stepId)}" value="${step.stepOrder}">`,
    `<p class="q-step-head">${facts.join(' ')}</p>`,
    `<p class="q-instructions">${text(clip(step.instructions.trim(), INSTRUCTIONS_CHARS))}</p>`,
    step.failureReason ? `<p class="q-failure">Failed: ${text(step.failureReason)}</p>` : '',
    step.result
      ? `<details class="q-result"><summary>Result</summary><pre class="q-pre">${text(step.result)}</pre></details>`
      : '',
    '</li>',
  ].join('');
}

function reviewItem(review: PlanViewReview): string {
  const when = review.at ? `${time(review.at)} ` : '';
  const step = review.stepOrder !== undefined ? ` (step ${review.stepOrder})` : '';
  const what =
    review.kind === 'requested'
      ? `review requested${step}`
      : `decision <strong class="q-decision q-decision-${token(review.decision)}">${text(review.decision)}</strong>${step}`;
  const note = review.note ? `<p class="q-note">${text(clip(review.note, 600))}</p>` : '';
  return `<li class="q-review">${when}${what}${note}</li>`;
}

function items(list: readonly PlanViewItem[], empty: string): string {
  if (list.length === 0) return none(empty);
  const entries = list.map((item) => {
    const details = item.details.length ? ` <span class="q-muted">— ${text(item.details.join(', '))}</span>` : '';
    return `<li data-item-id="${text(item.id)}">${link(item.title || 'untitled', item.href)}${details}</li>`;
  });
  return `<ul class="q-items">${entries.join('')}</ul>`;
}
