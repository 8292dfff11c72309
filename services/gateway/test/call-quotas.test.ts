import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { toolCatalogue } from '@quarry/contracts';
import { createDb, sql } from '@quarry/db';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import { gatewaySchemas, type IdentityDatabase } from '../src/index.js';
import { createCallQuotas, createPostgresCallLimiter, type CallLimits } from '../src/quotas/call-quotas.js';
import { toolClassOf } from '../src/quotas/tool-classes.js';

// Calls per minute per org and tool class, at the gateway, over real PostgreSQL: the counter is
// rate-limiter-flexible's PostgreSQL store, so two gateway replicas (two limiters, two pools)
// count in one window; a window's end lets calls through again; another org is not counted or
// refused. The window is shortened to 2 s here (a minute in production).

const WINDOW_SECONDS = 2;
const logger = createLogger({ service: 'call-quotas-test', level: 'silent' });
const writeTool = toolCatalogue.find((t) => toolClassOf(t) === 'write')!;
const readTool = toolCatalogue.find((t) => toolClassOf(t) === 'read')!;

let database: TestDatabase;
let db: ReturnType<typeof createDb<IdentityDatabase>>;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  db = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 4 });
});
afterAll(async () => {
  for (const close of closers) await close();
  await db?.destroy();
  await database?.drop();
});

/** One gateway replica's quotas: its own limiter and pool over the shared database. */
function replica(defaults: CallLimits = {}) {
  const { limiter, close } = createPostgresCallLimiter(database.appUrl, WINDOW_SECONDS);
  closers.push(close);
  return createCallQuotas({ limiter, db, logger, defaults, limitsTtlMs: 0 });
}

async function setLimit(orgId: string, toolClass: string, callsPerMinute: number) {
  await sql`insert into gateway.org_call_quotas (org_id, tool_class, calls_per_minute)
            values (${orgId}, ${toolClass}, ${callsPerMinute})
            on conflict (org_id, tool_class) do update set calls_per_minute = excluded.calls_per_minute`.execute(
    database.admin,
  );
}

describe('tool classes', () => {
  it('are derived from each tool: every catalogue tool has one, and each class has tools', () => {
    const classes = new Set(toolCatalogue.map(toolClassOf));
    expect([...classes].sort()).toEqual(['model', 'read', 'search', 'write']);
    expect(toolClassOf(toolCatalogue.find((t) => t.name === 'extract_data')!)).toBe('model');
    expect(toolClassOf(toolCatalogue.find((t) => t.name === 'store_research')!)).toBe('write');
  });
});

describe('calls per minute', () => {
  it('admits exactly the limit of concurrent calls across two replicas, and names the quota in the refusal', async () => {
    const orgA = randomUUID();
    await setLimit(orgA, 'write', 5);
    const [one, two] = [replica(), replica()];
    const verdicts = await Promise.all(
      Array.from({ length: 16 }, (_, i) => (i % 2 ? one : two).admit(orgA, writeTool)),
    );
    expect(verdicts.filter((v) => v === undefined)).toHaveLength(5);
    const refusal = verdicts.find((v) => v !== undefined)!;
    expect(refusal).toMatchObject({ quota: 'calls_per_minute.write', limit: 5, used: 5 });
    expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(WINDOW_SECONDS);
    expect(refusal.resetsAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("counts each class apart, and does not count or refuse another org's calls", async () => {
    const orgA = randomUUID();
    const orgB = randomUUID();
    await setLimit(orgA, 'write', 1);
    const quotas = replica({ write: 2 });
    expect(await quotas.admit(orgA, writeTool)).toBeUndefined();
    expect(await quotas.admit(orgA, writeTool)).toMatchObject({ limit: 1 });
    // Reads have no limit here; org B takes the default (2) and has its own window.
    expect(await quotas.admit(orgA, readTool)).toBeUndefined();
    expect(await quotas.admit(orgB, writeTool)).toBeUndefined();
    expect(await quotas.admit(orgB, writeTool)).toBeUndefined();
    expect(await quotas.admit(orgB, writeTool)).toMatchObject({ limit: 2, quota: 'calls_per_minute.write' });
  });

  it('admits calls again once the window has passed', async () => {
    const orgA = randomUUID();
    await setLimit(orgA, 'write', 1);
    const quotas = replica();
    expect(await quotas.admit(orgA, writeTool)).toBeUndefined();
    const refused = await quotas.admit(orgA, writeTool);
    expect(refused).toBeDefined();
    await new Promise((r) => setTimeout(r, refused!.resetsAt.getTime() - Date.now() + 50));
    expect(await quotas.admit(orgA, writeTool)).toBeUndefined();
  });
});
