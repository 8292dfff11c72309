/**
 * Model spend quotas (docs/adr/0061-per-org-quotas.md), decided from numbers alone: an org's
 * extractions on a server model and the tokens they used, per UTC day.
 */

/** An org's daily limits; undefined: none. */
export interface DailyLimits {
  extractionsPerDay?: number;
  modelTokensPerDay?: number;
}

/** A limit the org has reached: the quota, its limit, the use, when the day ends. */
export interface DailyOverrun {
  quota: 'extractions_per_day' | 'model_tokens_per_day';
  limit: number;
  used: number;
  resetsAt: Date;
}

/** The UTC day `at` falls in (YYYY-MM-DD), and when it ends. */
export function utcDay(at: Date): { day: string; endsAt: Date } {
  const day = at.toISOString().slice(0, 10);
  return { day, endsAt: new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000) };
}

/**
 * Whether one more extraction may run once the day's count, this one included, is `extractions`
 * and `tokens` were used before it: the count may reach its limit; tokens are checked before a
 * call (what a call will use is known only after it), so the call that crosses the limit
 * finishes and the next one is refused.
 */
export function dailyOverrun(
  used: { extractions: number; tokens: number },
  limits: DailyLimits,
  endsAt: Date,
): DailyOverrun | undefined {
  if (limits.extractionsPerDay !== undefined && used.extractions > limits.extractionsPerDay)
    return {
      quota: 'extractions_per_day',
      limit: limits.extractionsPerDay,
      used: used.extractions - 1,
      resetsAt: endsAt,
    };
  if (limits.modelTokensPerDay !== undefined && used.tokens >= limits.modelTokensPerDay)
    return { quota: 'model_tokens_per_day', limit: limits.modelTokensPerDay, used: used.tokens, resetsAt: endsAt };
  return undefined;
}
