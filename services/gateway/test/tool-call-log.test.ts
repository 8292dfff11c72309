import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { identityV1, toolCatalogue, type ToolDefinition } from '@quarry/contracts';
import { createDb, type Kysely, sql } from '@quarry/db';
import {
  createIdentityAdmin,
  createLocalBackend,
  createToolCallLog,
  createTools,
  gatewaySchemas,
  type IdentityAdmin,
  type IdentityDatabase,
  type Principal,
  type ToolCallLog,
} from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';

const logger = createLogger({ service: 'test', level: 'silent' });
const ping = toolCatalogue.find((t) => t.name === 'ping')!;
// Same rpc under another name: ping itself is deliberately never logged.
// A tool like ping that is not a liveness check: its calls are logged.
const { liveness: _liveness, ...loggedPing } = ping;
const whoami: ToolDefinition = { ...loggedPing, name: 'whoami' };
const implementation = {
  ping: async (_request: unknown, { principal }: { principal: Principal }) => ({
    message: `hi ${principal.name}`,
    orgSlug: principal.orgSlug,
    userEmail: principal.email,
    userName: principal.name,
  }),
};

let database: TestDatabase;
let app: Kysely<IdentityDatabase>;
let orgA: Principal;
let orgB: Principal;

async function member(admin: IdentityAdmin, slug: string): Promise<Principal> {
  const org = await admin.createOrg({ slug });
  const user = await admin.addUser({ email: `someone@${slug}.test`, orgSlug: slug, name: `Someone ${slug}` });
  const token = await admin.createToken({ orgSlug: slug, email: user.email });
  return {
    tokenId: token.id,
    orgId: org.id,
    orgSlug: slug,
    userId: user.id,
    email: user.email,
    name: user.name,
    expiresAt: null,
    scopes: ['quarry:read', 'quarry:write'],
    tools: null,
  };
}

function toolsWith(log: ToolCallLog) {
  return createTools({
    catalogue: [ping, whoami],
    backends: { [ping.rpc.service]: createLocalBackend(identityV1.IdentityServiceService, implementation) },
    logger,
    toolCallLog: log,
  });
}

async function rowsSeenBy(orgId: string | undefined) {
  return app.transaction().execute(async (trx) => {
    if (orgId) await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
    return trx.selectFrom('gateway.mcp_tool_call_log').selectAll().orderBy('id').execute();
  });
}

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  // One pooled connection, so RLS is proven on a reused connection.
  app = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 1 });
  const admin = createIdentityAdmin(database.admin as Kysely<IdentityDatabase>);
  orgA = await member(admin, 'org-a');
  orgB = await member(admin, 'org-b');
});
afterAll(async () => {
  await app?.destroy();
  await database?.drop();
});

describe('mcp_tool_call_log', () => {
  it('records every tool call except ping, with who, what, how long and how it ended', async () => {
    const log = createToolCallLog({ db: app, logger, flushIntervalMs: 60_000 });
    const tools = toolsWith(log);
    const caller = { principal: orgA, requestId: 'req-1' };
    await tools.call('ping', {}, caller);
    const ok = await tools.call('whoami', {}, { ...caller, requestId: 'req-2' });
    const bad = await tools.call('whoami', { nope: 1 }, { ...caller, requestId: 'req-3' });
    await expect(tools.call('missing_tool', {}, { ...caller, requestId: 'req-4' })).rejects.toThrow(/Unknown tool/);
    expect(ok.result?.isError).toBeFalsy();
    expect(bad.result?.isError).toBe(true);
    // Recording is in memory; nothing has been written on the request path.
    expect(log.pending()).toBe(3);
    expect(await rowsSeenBy(orgA.orgId)).toHaveLength(0);

    await log.close();
    const rows = await rowsSeenBy(orgA.orgId);
    expect(rows.map((r) => [r.tool, r.request_id, r.outcome, r.error_code, r.argument_bytes])).toEqual([
      ['whoami', 'req-2', 'ok', null, 2],
      ['whoami', 'req-3', 'tool_error', 'INVALID_ARGUMENT', 10],
      ['missing_tool', 'req-4', 'protocol_error', 'UNKNOWN_TOOL', 2],
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({ org_id: orgA.orgId, user_id: orgA.userId, token_id: orgA.tokenId });
      expect(row.duration_ms).toBeGreaterThanOrEqual(0);
      expect(row.occurred_at).toBeInstanceOf(Date);
    }
  });

  it('keeps each org’s calls to itself, also on a reused pooled connection', async () => {
    const log = createToolCallLog({ db: app, logger, flushIntervalMs: 60_000 });
    await toolsWith(log).call('whoami', {}, { principal: orgB, requestId: 'req-b' });
    await log.close();
    const seenByA = await rowsSeenBy(orgA.orgId);
    const seenByB = await rowsSeenBy(orgB.orgId);
    expect(seenByA.every((r) => r.org_id === orgA.orgId)).toBe(true);
    expect(seenByB.map((r) => r.request_id)).toEqual(['req-b']);
    // The same (only) connection, now without a tenant: nothing.
    expect(await rowsSeenBy(undefined)).toHaveLength(0);
  });

  it('refuses to write a row for another org than the transaction’s', async () => {
    await expect(
      app.transaction().execute(async (trx) => {
        await sql`select set_config('app.org_id', ${orgA.orgId}, true)`.execute(trx);
        await trx
          .insertInto('gateway.mcp_tool_call_log')
          .values({
            occurred_at: new Date(),
            org_id: orgB.orgId,
            request_id: 'x',
            tool: 'whoami',
            duration_ms: 1,
            outcome: 'ok',
            argument_bytes: 0,
            user_id: null,
            token_id: null,
            error_code: null,
            input_tokens: null,
            output_tokens: null,
          })
          .execute();
      }),
    ).rejects.toThrow(/row-level security/);
  });

  it('is insert-only: the app role can neither change nor remove a logged call, even its own org’s', async () => {
    const log = createToolCallLog({ db: app, logger, flushIntervalMs: 60_000 });
    await toolsWith(log).call('whoami', {}, { principal: orgA, requestId: 'req-kept' });
    await log.close();
    const before = await rowsSeenBy(orgA.orgId);
    const asA = (statement: ReturnType<typeof sql>) =>
      app.transaction().execute(async (trx) => {
        await sql`select set_config('app.org_id', ${orgA.orgId}, true)`.execute(trx);
        await statement.execute(trx);
      });
    await expect(asA(sql`update gateway.mcp_tool_call_log set outcome = 'tool_error'`)).rejects.toThrow(
      /insert-only: UPDATE/,
    );
    await expect(asA(sql`delete from gateway.mcp_tool_call_log where request_id = 'req-kept'`)).rejects.toThrow(
      /insert-only: DELETE/,
    );
    await expect(asA(sql`delete from gateway.mcp_tool_call_log where false`)).rejects.toThrow(/insert-only/);
    await expect(asA(sql`truncate gateway.mcp_tool_call_log`)).rejects.toThrow(/insert-only|permission denied/);
    expect(await rowsSeenBy(orgA.orgId)).toEqual(before);
  });

  it('counts what it drops when the queue is full instead of blocking the request', async () => {
    const drops: Array<[number, string]> = [];
    const log = createToolCallLog({
      db: app,
      logger,
      capacity: 2,
      batchSize: 100,
      flushIntervalMs: 60_000,
      onDrop: (n, reason) => drops.push([n, reason]),
    });
    const tools = toolsWith(log);
    for (let i = 0; i < 5; i++) await tools.call('whoami', {}, { principal: orgA, requestId: `burst-${i}` });
    expect(log.pending()).toBe(2);
    expect(drops).toEqual([
      [1, 'queue_full'],
      [1, 'queue_full'],
      [1, 'queue_full'],
    ]);
    await log.close();
  });

  it('counts records it could not write (and keeps serving)', async () => {
    const broken = createDb<IdentityDatabase>({
      connectionString: database.appUrl.replace(/\/[^/]+$/, '/no_such_database'),
      max: 1,
    });
    const drops: Array<[number, string]> = [];
    const log = createToolCallLog({
      db: broken,
      logger,
      flushIntervalMs: 60_000,
      onDrop: (n, reason) => drops.push([n, reason]),
    });
    const result = await toolsWith(log).call('whoami', {}, { principal: orgA, requestId: 'lost' });
    expect(result.result?.isError).toBeFalsy();
    await log.close();
    expect(drops).toEqual([[1, 'write_failed']]);
    await broken.destroy();
  });

  it('writes a batch of many orgs exactly as recorded: awkward text, nulls, times and numbers', async () => {
    const log = createToolCallLog({ db: app, logger, batchSize: 1_000, flushIntervalMs: 60_000 });
    const awkward = ['plain', 'quote " and \\ backslash', 'comma, {braces} and NULL', '', 'ünïcødé ✓', 'a\nnewline'];
    const at = new Date('2026-11-22T06:00:00.123Z');
    const records = awkward.flatMap((text, i) =>
      [orgA, orgB].map((p, j) => ({
        occurredAt: new Date(at.getTime() + i * 1000 + j),
        orgId: p.orgId,
        userId: j === 0 ? p.userId : null,
        tokenId: j === 0 ? p.tokenId : null,
        requestId: `batch-${i}-${j} ${text}`,
        tool: `tool ${text}`.slice(0, 128),
        durationMs: 0.25 + i,
        outcome: (j === 0 ? 'ok' : 'tool_error') as 'ok' | 'tool_error',
        errorCode: j === 0 ? null : `CODE ${text}`,
        argumentBytes: i * 10,
        inputTokens: j === 0 ? null : i,
        outputTokens: j === 0 ? null : i * 2,
      })),
    );
    for (const record of records) log.record(record);
    await log.close();
    for (const p of [orgA, orgB]) {
      const rows = (await rowsSeenBy(p.orgId)).filter((r) => r.request_id.startsWith('batch-'));
      const expected = records.filter((r) => r.orgId === p.orgId);
      expect(
        rows.map((r) => ({
          occurredAt: new Date(r.occurred_at as unknown as string).toISOString(),
          userId: r.user_id,
          tokenId: r.token_id,
          requestId: r.request_id,
          tool: r.tool,
          durationMs: Number(r.duration_ms),
          outcome: r.outcome,
          errorCode: r.error_code,
          argumentBytes: r.argument_bytes,
          inputTokens: r.input_tokens,
          outputTokens: r.output_tokens,
        })),
      ).toEqual(
        expected.map(({ orgId: _orgId, occurredAt, ...rest }) => ({ occurredAt: occurredAt.toISOString(), ...rest })),
      );
    }
  });
});
