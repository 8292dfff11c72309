import { withTenant } from '@quarry/db';
import type { ToolDefinition } from '@quarry/contracts';
import type { Kysely } from 'kysely';
import type { QuotaMetrics } from '@quarry/telemetry';
import type { Logger } from 'pino';
import pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import { gatewayToolErrors, type ToolErrorShape } from '../errors.js';
import type { IdentityDatabase } from '../identity/schema.js';
import { type ToolClass, toolClassOf } from './tool-classes.js';

/** Calls per minute of each class, for every org unless the operator set its own; absent: no limit. */
export type CallLimits = Partial<Record<ToolClass, number>>;

/** A call past its org's rate: the quota, its limit, the calls admitted in the window, when it resets. */
export interface CallRefusal {
  quota: `calls_per_minute.${ToolClass}`;
  limit: number;
  used: number;
  resetsAt: Date;
  retryAfterSeconds: number;
}

/**
 * What the caller's model reads: a tool error (not an HTTP 429, which MCP clients take for a
 * failed transport) naming the quota, its limit, the use and when it resets.
 */
export function callQuotaError(refusal: CallRefusal): ToolErrorShape {
  const toolClass = refusal.quota.split('.')[1];
  return {
    code: 'QUOTA_EXCEEDED',
    retryable: gatewayToolErrors.QUOTA_EXCEEDED.retryable,
    message:
      `Quota ${refusal.quota} exceeded: your organization may make ${refusal.limit} ${toolClass} tool calls per ` +
      `minute and has made ${refusal.used} in this window. It resets at ${refusal.resetsAt.toISOString()} ` +
      `(in ${refusal.retryAfterSeconds} s); retry then.`,
    details: {
      quota: refusal.quota,
      limit: refusal.limit,
      used: refusal.used,
      resetsAt: refusal.resetsAt.toISOString(),
      retryAfterSeconds: refusal.retryAfterSeconds,
    },
  };
}

export interface CallQuotas {
  /** Counts a call of `tool` for `orgId`; the refusal when it is past the org's limit for the tool's class. */
  admit(orgId: string, tool: ToolDefinition): Promise<CallRefusal | undefined>;
}

export interface CallQuotasOptions {
  /** The window's counter (rate-limiter-flexible; PostgreSQL in production, shared by every replica). */
  limiter: RateLimiterAbstract;
  /** Every org's limits unless its own are set (gateway.org_call_quotas). */
  defaults: CallLimits;
  /** Reads an org's own limits (the app role, under the org's tenancy). */
  db: Kysely<IdentityDatabase>;
  logger: Logger;
  /** Per-org use and refusals for Prometheus (bounded series). */
  metrics?: QuotaMetrics;
  /** How long an org's own limits are kept before they are read again (default 30 s). */
  limitsTtlMs?: number;
  now?: () => number;
}

/** The limiter's own ceiling: far above any limit, so the org's limit is compared here, per call. */
const LIMITER_POINTS = 2 ** 31 - 1;

/**
 * Calls per minute per org and tool class, at the gateway (which owns calls). Each call adds one
 * to its org's counter for the class in the current window (fixed, one minute from the window's
 * first call), then is compared with the org's limit: an operator's change applies from the next
 * read of the org's limits (limitsTtlMs) without resetting the window. Once a class is refused,
 * this replica refuses it until the window's reset without asking the counter again (an operator's
 * raise applies from the next window), so a client hammering at its limit stays refused and costs
 * one round trip per window, not one per call. Another org's calls
 * touch only their own counter row, so a flood does not queue them behind it.
 */
export function createCallQuotas(options: CallQuotasOptions): CallQuotas {
  const now = options.now ?? Date.now;
  const ttlMs = options.limitsTtlMs ?? 30_000;
  const own = new Map<string, { limits: CallLimits; until: number }>();
  const refusedUntil = new Map<string, CallRefusal>();

  async function limitsOf(orgId: string): Promise<CallLimits> {
    const cached = own.get(orgId);
    if (cached && cached.until > now()) return cached.limits;
    const rows = await withTenant(options.db, { orgId }, (trx) =>
      trx
        .selectFrom('gateway.org_call_quotas')
        .select(['tool_class', 'calls_per_minute'])
        .where('org_id', '=', orgId)
        .execute(),
    );
    const limits: CallLimits = { ...options.defaults };
    for (const r of rows) limits[r.tool_class as ToolClass] = r.calls_per_minute;
    // One entry per org that called lately: bounded by the orgs, cleared whole when it grows.
    if (own.size >= 10_000) own.clear();
    own.set(orgId, { limits, until: now() + ttlMs });
    return limits;
  }

  return {
    async admit(orgId, tool) {
      const toolClass = toolClassOf(tool);
      const limit = (await limitsOf(orgId))[toolClass];
      if (limit === undefined) return undefined;
      const key = `${orgId}:${toolClass}`;
      // A class already refused in this window is refused here until its reset, without a round
      // trip: a client hammering at its limit then costs the database nothing.
      const blocked = refusedUntil.get(key);
      if (blocked && blocked.resetsAt.getTime() > now()) {
        options.metrics?.refused(blocked.quota);
        return { ...blocked, retryAfterSeconds: Math.max(1, Math.ceil((blocked.resetsAt.getTime() - now()) / 1000)) };
      }
      let counted: RateLimiterRes;
      try {
        counted = await options.limiter.consume(key);
      } catch (error) {
        if (error instanceof RateLimiterRes) counted = error;
        else {
          // The counter's store and its per-replica insurance both failed: the call is served,
          // uncounted, rather than every org refused by an outage of the counter.
          options.logger.warn({ err: error, orgId, toolClass }, 'call quota not counted');
          return undefined;
        }
      }
      const quota = `calls_per_minute.${toolClass}` as const;
      options.metrics?.observe(quota, orgId, Math.min(counted.consumedPoints, limit), limit);
      if (counted.consumedPoints <= limit) return undefined;
      options.metrics?.refused(quota);
      const retryAfterSeconds = Math.max(1, Math.ceil(counted.msBeforeNext / 1000));
      const refusal = {
        quota,
        limit,
        used: limit,
        resetsAt: new Date(now() + counted.msBeforeNext),
        retryAfterSeconds,
      };
      if (refusedUntil.size >= 10_000) refusedUntil.clear();
      refusedUntil.set(key, refusal);
      return refusal;
    },
  };
}

/**
 * The production counter: rate-limiter-flexible's PostgreSQL store over its own small pool (the
 * table gateway.call_rates, created by migration), shared by every gateway replica. If PostgreSQL
 * does not answer, each replica counts in memory meanwhile (the library's insurance limiter), so
 * limits still hold per replica.
 */
export function createPostgresCallLimiter(
  connectionString: string,
  /** The window's length (a minute; tests shorten it). */
  windowSeconds = 60,
): { limiter: RateLimiterAbstract; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString, application_name: 'quarry-gateway-call-quotas', max: 4 });
  const window = { points: LIMITER_POINTS, duration: windowSeconds, keyPrefix: 'calls' };
  const limiter = new RateLimiterPostgres({
    ...window,
    storeClient: pool,
    storeType: 'pool',
    schemaName: 'gateway',
    tableName: 'call_rates',
    tableCreated: true,
    insuranceLimiter: new RateLimiterMemory(window),
  });
  return { limiter, close: () => pool.end() };
}
