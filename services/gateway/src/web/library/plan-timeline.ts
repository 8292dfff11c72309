import type { PlanViewStep, ResearchContextResult } from '@quarry/views';
import { escapeHtml } from '../../http/html-document.js';
import { when, words } from './page-parts.js';

/**
 * The plan's timeline from its audit log (the latest events toolNames.getResearchContext returns),
 * oldest first: when, what happened, to which step, and the one detail that says why (the
 * change, the decision, the reason). Every value escaped.
 */
export function renderTimeline(context: ResearchContextResult, steps: readonly PlanViewStep[]): string {
  const orderOf = new Map(steps.map((step) => [step.stepId, step.stepOrder]));
  const events = [...context.recentAuditEvents].sort((a, b) => a.eventId - b.eventId);
  if (events.length === 0) return '';
  const items = events.map((event) => {
    const step = event.stepId && orderOf.has(event.stepId) ? ` · step ${orderOf.get(event.stepId)}` : '';
    const detail = detailOf(event.eventData);
    return `<li>${when(event.createdAt)} <strong>${escapeHtml(words(event.eventType))}</strong>${escapeHtml(step)}${detail ? ` — ${escapeHtml(detail)}` : ''}</li>`;
  });
  return `<section class="timeline" aria-labelledby="timeline-heading"><h2 id="timeline-heading">Timeline</h2><p class="muted">The latest events of the plan's audit log, oldest first.</p><ol>${items.join('')}</ol></section>`;
}

const DETAIL_KEYS = ['action', 'decision', 'from', 'to', 'reason', 'cause', 'feedback'] as const;

function detailOf(data: unknown): string {
  if (!data || typeof data !== 'object') return '';
  const record = data as Record<string, unknown>;
  const parts = DETAIL_KEYS.flatMap((key) => {
    const value = record[key];
    return typeof value === 'string' && value ? [`${key} ${words(value)}`] : [];
  });
  const text = parts.join(', ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
