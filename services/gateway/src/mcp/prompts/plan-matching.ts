import type { PlanChoice } from './plan-reader.js';

/** What completion offers at most (the protocol's limit on `values`). */
export const MAX_COMPLETIONS = 100;

/** The words of what a human typed, lowercased. */
export function wordsOf(typed: string): string[] {
  return typed.toLowerCase().split(/\s+/).filter(Boolean);
}

/**
 * The word to ask the plan list for: its query matches a phrase, so one word, the longest (the most
 * selective); the others are checked here, in any order.
 */
export function queryWordOf(typed: string): string | undefined {
  return wordsOf(typed).reduce<string | undefined>(
    (best, w) => (best && best.length >= w.length ? best : w),
    undefined,
  );
}

/** Whether what was typed could be the start of a plan ID. */
export function looksLikeIdPrefix(typed: string): boolean {
  return /^[0-9a-f-]{1,36}$/i.test(typed.trim());
}

/**
 * The plan IDs to offer for `typed`: plans whose name or question holds every typed word (in any
 * order), or whose ID starts with it. Plans named with the words come before plans that only ask
 * about them; otherwise the given order (most recently updated first) is kept.
 */
export function matchPlans(plans: readonly PlanChoice[], typed: string): string[] {
  const words = wordsOf(typed);
  const prefix = typed.trim().toLowerCase();
  const seen = new Set<string>();
  const ranked: { id: string; rank: number; index: number }[] = [];
  plans.forEach((plan, index) => {
    if (seen.has(plan.planId)) return;
    seen.add(plan.planId);
    const name = plan.name.toLowerCase();
    const question = plan.researchQuestion.toLowerCase();
    let rank: number;
    if (words.length === 0) rank = 0;
    else if (plan.planId.toLowerCase().startsWith(prefix)) rank = 0;
    else if (name.startsWith(prefix)) rank = 1;
    else if (words.every((w) => name.includes(w))) rank = 2;
    else if (words.every((w) => name.includes(w) || question.includes(w))) rank = 3;
    else return;
    ranked.push({ id: plan.planId, rank, index });
  });
  ranked.sort((a, b) => a.rank - b.rank || a.index - b.index);
  return ranked.map((r) => r.id);
}
