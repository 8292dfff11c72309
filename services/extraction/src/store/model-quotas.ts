import { withTenant } from '@quarry/db';
import type { CallContext } from '@quarry/grpc';
import { sql, type Kysely } from 'kysely';
import { type DailyLimits, dailyOverrun, utcDay } from '../core/daily-quota.js';
import type { QuotaMetrics } from '@quarry/telemetry';
import { extractionErrors } from '../errors.js';

/** An org's model spend against its daily quotas (extraction.org_daily_usage, extraction.org_quotas). */
export interface ModelQuotas {
  /**
   * Admits one extraction on a server model for the caller's org, or refuses it (QUOTA_EXCEEDED)
   * when the org has run its extractions of the day or used its tokens. Admitted, it is counted.
   */
  admit(ctx: CallContext): Promise<void>;
  /** Adds the tokens a server model used (also for a call that then failed) to the org's day. */
  record(ctx: CallContext, tokens: number): Promise<void>;
}

export function createModelQuotas(
  db: Kysely<unknown>,
  defaults: DailyLimits,
  options: { metrics?: QuotaMetrics; now?: () => Date } = {},
): ModelQuotas {
  const now = options.now ?? (() => new Date());
  return {
    async admit(ctx) {
      const { day, endsAt } = utcDay(now());
      await withTenant(db, { orgId: ctx.identity.orgId }, async (trx) => {
        // The upsert locks the org's day until this transaction ends: concurrent admissions
        // count one after another, and a refused one rolls its count back.
        const { rows } = await sql<{ extractions: number; model_tokens: string }>`
          insert into extraction.org_daily_usage as u (org_id, day, extractions)
          values (${ctx.identity.orgId}, ${day}, 1)
          on conflict (org_id, day) do update set extractions = u.extractions + 1
          returning extractions, model_tokens`.execute(trx);
        const { rows: own } = await sql<{ extractions_per_day: number | null; model_tokens_per_day: string | null }>`
          select extractions_per_day, model_tokens_per_day from extraction.org_quotas where org_id = ${ctx.identity.orgId}`.execute(
          trx,
        );
        const limits: DailyLimits = {
          extractionsPerDay: own[0]?.extractions_per_day ?? defaults.extractionsPerDay,
          modelTokensPerDay:
            own[0]?.model_tokens_per_day != null ? Number(own[0].model_tokens_per_day) : defaults.modelTokensPerDay,
        };
        const overrun = dailyOverrun(
          { extractions: rows[0]!.extractions, tokens: Number(rows[0]!.model_tokens) },
          limits,
          endsAt,
        );
        options.metrics?.observe(
          'extractions_per_day',
          ctx.identity.orgId,
          rows[0]!.extractions,
          limits.extractionsPerDay,
        );
        options.metrics?.observe(
          'model_tokens_per_day',
          ctx.identity.orgId,
          Number(rows[0]!.model_tokens),
          limits.modelTokensPerDay,
        );
        if (overrun) options.metrics?.refused(overrun.quota);
        if (overrun)
          throw extractionErrors.QUOTA_EXCEEDED(
            { ...overrun, resetsAt: overrun.resetsAt.toISOString() },
            {
              details: {
                quota: overrun.quota,
                limit: overrun.limit,
                used: overrun.used,
                resetsAt: overrun.resetsAt.toISOString(),
              },
            },
          );
      });
    },
    async record(ctx, tokens) {
      if (tokens <= 0) return;
      const { day } = utcDay(now());
      await withTenant(db, { orgId: ctx.identity.orgId }, async (trx) => {
        await sql`
          insert into extraction.org_daily_usage as u (org_id, day, model_tokens)
          values (${ctx.identity.orgId}, ${day}, ${tokens})
          on conflict (org_id, day) do update set model_tokens = u.model_tokens + excluded.model_tokens`.execute(trx);
      });
    },
  };
}
