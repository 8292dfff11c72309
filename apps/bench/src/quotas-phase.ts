import { createDb, sql } from '@quarry/db';
import { createMcpCaller, toolCallRequest } from './mcp.js';
import { interleavedLatency, percentile, startLoad } from './measure.js';
import { createPlans } from './plan-workload.js';
import type { Phase } from './phase.js';
import { compared, type Results } from './report.js';

/** Org A's read calls per minute: it floods far past this, so nearly all its calls are refused. */
const FLOOD_LIMIT = 60;
/** Org A's concurrent clients, each sending its next call as soon as the last is answered. */
const FLOOD_CONNECTIONS = 4;

/**
 * Quota isolation (ADR 0061): org B's get_plan_status p95, one call at a time, alone and then
 * while org A floods get_plan_status at its read quota (most of A's calls answered QUOTA_EXCEEDED
 * by the gateway's PostgreSQL-counted limiter). B has no quota, so what it pays is what A's flood
 * costs the machine and the shared parts (gateway, PostgreSQL), not a limit of its own. Target:
 * B's p95 under the flood ≤ 1.2× alone.
 */
export const quotasPhase: Phase = {
  name: 'quotas',
  async run({ system, sizes, progress }) {
    const [flooder, quiet] = [await system.createMember('quota-flood'), await system.createMember('quota-quiet')];
    const admin = createDb<unknown>({
      connectionString: system.adminUrl,
      applicationName: 'quarry-bench-quotas',
      max: 1,
    });
    try {
      await sql`insert into gateway.org_call_quotas (org_id, tool_class, calls_per_minute)
                values (${flooder.orgId}, 'read', ${FLOOD_LIMIT})`.execute(admin);
    } finally {
      await admin.destroy();
    }
    const a = createMcpCaller(system.quarryUrl, flooder.token);
    const b = createMcpCaller(system.quarryUrl, quiet.token);
    try {
      const [planA] = await createPlans(a, 1, 2);
      const [planB] = await createPlans(b, 1, 2);
      const readB = () => b.call('get_plan_status', { planId: planB });
      for (let i = 0; i < sizes.warmupCalls; i++) await readB();
      const bounds = { count: sizes.latencyRounds, maxMs: sizes.latencyMaxSeconds * 1000 };
      progress('org B alone');
      const alone = (await interleavedLatency({ b: readB }, bounds, progress)).b;

      progress(`org B while org A floods at its read quota (${FLOOD_LIMIT}/min, ${FLOOD_CONNECTIONS} clients)`);
      const { headers, body } = toolCallRequest(flooder.token, 'get_plan_status', { planId: planA });
      let refused = 0;
      const flood = startLoad({
        url: system.quarryUrl,
        headers,
        body,
        connections: FLOOD_CONNECTIONS,
        seconds: sizes.latencyMaxSeconds + 30,
        maxRequests: Number.MAX_SAFE_INTEGER,
        verifyBody: (text) => {
          if (text.includes('QUOTA_EXCEEDED')) refused += 1;
          return true;
        },
      });
      let flooded: number[];
      try {
        // A reaches its limit before B is measured: from then on its calls are refused.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        flooded = (await interleavedLatency({ b: readB }, bounds, progress)).b;
      } finally {
        flood.stop();
      }
      const load = await flood.done;
      const results: Results = {
        quotas_b_p95_ms_alone: { value: percentile(alone, 95), unit: 'ms' },
        quotas_b_p95_ms_flood: compared(percentile(flooded, 95), percentile(alone, 95), 'ms'),
        quotas_a_flood_calls_per_s: { value: load.perSecond, unit: 'calls/s' },
        quotas_a_refused_share: { value: load.requests ? refused / load.requests : 0, unit: 'share' },
        quotas_a_flood_failures: { value: load.failures, unit: 'calls' },
      };
      return results;
    } finally {
      a.close();
      b.close();
    }
  },
};
