import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { identityV1, toolCatalogue, type ToolDefinition } from '@quarry/contracts';
import { createDb, type Kysely, sql } from '@quarry/db';
import {
  createIdentityAdmin,
  createLocalBackend,
  createTokenAuthenticator,
  createToolCallLog,
  createTools,
  gatewaySchemas,
  type IdentityAdmin,
  type IdentityDatabase,
  type Principal,
  type TokenAuthenticator,
  type ToolCallLog,
  type Tools,
} from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';
import type { FastifyInstance } from 'fastify';
import { injectPost, LEGACY_INIT, modernToolCall } from './mcp-requests.js';
import { buildStubServer } from './stub-deps.js';

// A cached token's revocation check (one round trip on the LISTEN connection) runs alongside a
// read-only tool's rpc; the answer is withheld until the check passes. Anything else waits for
// the check before it starts. Here the check's verdict is held back by a gate so each ordering
// can be observed; the real authenticator (on real PostgreSQL) still decides everything else, and
// the real dispatcher and tool-call log run the tools, served in-process: no gRPC.

const logger = createLogger({ service: 'gateway-test', level: 'silent' });
const ping = toolCatalogue.find((t) => t.name === 'ping')!;
// ping's rpc under other names: ping itself is never logged; `touch` stands for a tool that writes,
// with the annotations of get_research_context (which writes session_resumed when given a
// sessionId), so that tool is held to the write path too.
const { liveness: _liveness, ...loggedPing } = ping;
const whoami: ToolDefinition = { ...loggedPing, name: 'whoami' };
const touch: ToolDefinition = {
  ...ping,
  name: 'touch',
  annotations: toolCatalogue.find((t) => t.name === 'get_research_context')!.annotations,
};
const implementation = {
  ping: async (_request: unknown, { principal }: { principal: Principal }) => ({
    message: `Connected to Quarry as ${principal.name} (${principal.email}).`,
    orgSlug: principal.orgSlug,
    userEmail: principal.email,
    userName: principal.name,
  }),
};

let database: TestDatabase;
let db: Kysely<IdentityDatabase>;
let admin: IdentityAdmin;
let real: TokenAuthenticator;
let toolCallLog: ToolCallLog;
let app: FastifyInstance;

/** Holds every pending revocation verdict until released; `verdict` replaces the real one. */
const gate = {
  open: true,
  waiting: [] as Array<(verdict: boolean | undefined) => void>,
  hold() {
    this.open = false;
  },
  release(verdict?: boolean) {
    this.open = true;
    for (const resolve of this.waiting.splice(0)) resolve(verdict);
  },
};

/** What the dispatcher was asked to do, and what it finished. */
const rpcs = { started: [] as string[], finished: [] as string[] };

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  db = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 4 });
  admin = createIdentityAdmin(database.admin as Kysely<IdentityDatabase>);
  await admin.createOrg({ slug: 'acme' });
  await admin.addUser({ email: 'ada@acme.test', orgSlug: 'acme', name: 'Ada Lovelace' });
  real = createTokenAuthenticator({ db, listenConnectionString: database.appUrl, logger });
  await real.start();
  toolCallLog = createToolCallLog({ db, logger, flushIntervalMs: 60_000 });
  const tools = createTools({
    catalogue: [whoami, touch],
    backends: { [ping.rpc.service]: createLocalBackend(identityV1.IdentityServiceService, implementation) },
    logger,
    toolCallLog,
  });
  const authenticator: TokenAuthenticator = {
    ...real,
    authenticateUnconfirmed: async (token) => {
      const result = await real.authenticateUnconfirmed(token);
      if (!('confirmed' in result) || gate.open) return result;
      const held = new Promise<boolean | undefined>((resolve) => gate.waiting.push(resolve));
      return { ...result, confirmed: Promise.all([result.confirmed, held]).then(([ok, verdict]) => verdict ?? ok) };
    },
  };
  const tracked: Tools = {
    ...tools,
    call: async (name, args, caller) => {
      rpcs.started.push(name);
      try {
        return await tools.call(name, args, caller);
      } finally {
        rpcs.finished.push(name);
      }
    },
  };
  ({ app } = await buildStubServer({ authenticator, tools: tracked }));
});
afterAll(async () => {
  gate.release();
  await app?.close();
  await toolCallLog?.close();
  await real?.close();
  await db?.destroy();
  await database?.drop();
});

/** A 2026-07-28 tools/call; resolves with the status and body, and marks when it was answered. */
function call(token: string, name: string, args: Record<string, unknown>) {
  const answered = { at: false };
  const request = modernToolCall(name, args);
  const response = injectPost(app, JSON.stringify(request.body), {
    authorization: `Bearer ${token}`,
    ...request.headers,
  }).then(({ status, json }) => {
    answered.at = true;
    return { status, body: json };
  });
  return { response, answered };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(check: () => boolean, what: string) {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not ${what} in time`);
    await sleep(10);
  }
}

/** A token of its own (so the log rows of one test are countable), already in the cache. */
async function cachedToken(): Promise<{ token: string; id: string }> {
  const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'overlap' });
  expect((await call(token, 'touch', {}).response).status).toBe(200);
  return { token, id };
}

async function loggedCalls(tokenId: string, tool: string): Promise<number> {
  await toolCallLog.flush();
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from gateway.mcp_tool_call_log where token_id = ${tokenId} and tool = ${tool}`.execute(
    database.admin,
  );
  return Number(rows[0]!.n);
}

/** A whoami (read-only) whose revocation verdict is held back, once its rpc has finished. */
async function readWithVerdictHeld() {
  const { token, id } = await cachedToken();
  rpcs.finished.length = 0;
  gate.hold();
  const read = call(token, 'whoami', {});
  await until(() => rpcs.finished.includes('whoami'), 'read');
  return { id, read };
}

const ADA = { orgSlug: 'acme', userEmail: 'ada@acme.test', userName: 'Ada Lovelace' };

describe('the revocation check of a cached token', () => {
  it('runs alongside a read-only call, whose answer waits for it', async () => {
    const { id, read } = await readWithVerdictHeld();
    await sleep(50);
    expect(read.answered.at).toBe(false);
    gate.release();
    const { status, body } = await read.response;
    expect(status).toBe(200);
    expect(body.result?.structuredContent).toMatchObject(ADA);
    expect(await loggedCalls(id, 'whoami')).toBe(1);
  });

  it('comes first for a call that writes: its rpc starts only once the check passed', async () => {
    const { token } = await cachedToken();
    rpcs.started.length = 0;
    gate.hold();
    const write = call(token, 'touch', {});
    await sleep(200);
    expect(rpcs.started).toEqual([]);
    gate.release();
    const { status, body } = await write.response;
    expect(status).toBe(200);
    expect(body.result?.isError).toBeUndefined();
    expect(rpcs.started).toEqual(['touch']);
  });

  it('comes first for requests the SDK serves (here a 2025-era initialize)', async () => {
    const { token } = await cachedToken();
    gate.hold();
    let answered = false;
    const init = injectPost(app, LEGACY_INIT, { authorization: `Bearer ${token}` }).then((r) => {
      answered = true;
      return r;
    });
    await sleep(200);
    expect(answered).toBe(false);
    gate.release();
    expect((await init).status).toBe(200);
  });

  it('withholds the read when it fails and the token turns out revoked: 401, and no call is logged', async () => {
    const { id, read } = await readWithVerdictHeld();
    await admin.revokeToken(id);
    gate.release(false);
    const { status, body } = await read.response;
    expect(status).toBe(401);
    expect(JSON.stringify(body)).toContain('revoked');
    expect(await loggedCalls(id, 'whoami')).toBe(0);
  });

  it('when it fails for a token still valid, looks the token up and answers the call once', async () => {
    const { id, read } = await readWithVerdictHeld();
    gate.release(false);
    const { status, body } = await read.response;
    expect(status).toBe(200);
    expect(body.result?.structuredContent).toMatchObject(ADA);
    // The speculative read ran and was discarded; the answer comes from the one made after the lookup.
    expect(rpcs.finished.filter((name) => name === 'whoami')).toHaveLength(2);
    expect(await loggedCalls(id, 'whoami')).toBe(1);
  });

  it('refuses every read sent after a revocation committed, on the real check', async () => {
    for (let round = 0; round < 10; round++) {
      const { token, id } = await cachedToken();
      await admin.revokeToken(id);
      const reads = await Promise.all(Array.from({ length: 5 }, () => call(token, 'whoami', {}).response));
      expect(reads.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
      expect(await loggedCalls(id, 'whoami')).toBe(0);
    }
  });
});
