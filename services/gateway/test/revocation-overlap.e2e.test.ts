import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildServer, type ToolDispatcher } from '@quarry/gateway';
import { type Kysely, sql } from 'kysely';
import { startTestGateway } from './harness.js';
import { LEGACY_INIT, modernToolCall, rawPost } from './mcp-requests.js';

// A cached token's revocation check (one round trip on the LISTEN connection) runs alongside a
// read-only tool's rpc; the answer is withheld until the check passes. Anything else waits for
// the check before it starts. Here the check's verdict is held back by a gate so each ordering
// can be observed; the real authenticator still decides everything else.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let gated: Awaited<ReturnType<typeof buildServer>>;
let url: string;

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
  gateway = await startTestGateway();
  const { deps } = gateway.runtime;
  const real = deps.authenticator;
  const authenticator: typeof real = {
    ...real,
    authenticateUnconfirmed: async (token) => {
      const result = await real.authenticateUnconfirmed(token);
      if (!('confirmed' in result) || gate.open) return result;
      const held = new Promise<boolean | undefined>((resolve) => gate.waiting.push(resolve));
      return { ...result, confirmed: Promise.all([result.confirmed, held]).then(([ok, verdict]) => verdict ?? ok) };
    },
  };
  const dispatcher: ToolDispatcher = {
    ...deps.dispatcher,
    call: async (name, args, caller) => {
      rpcs.started.push(name);
      try {
        return await deps.dispatcher.call(name, args, caller);
      } finally {
        rpcs.finished.push(name);
      }
    },
  };
  gated = await buildServer({ ...deps, authenticator, dispatcher });
  await gated.listen({ host: '127.0.0.1', port: 0 });
  const address = gated.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});
afterAll(async () => {
  gate.release();
  await gated?.close();
  await gateway?.close();
});

/** A 2026-07-28 tools/call; resolves with the status and body, and marks when it was answered. */
function call(token: string, name: string, args: Record<string, unknown>) {
  const answered = { at: false };
  const request = modernToolCall(name, args);
  const response = fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      ...request.headers,
    },
    body: JSON.stringify(request.body),
  }).then(async (r) => {
    answered.at = true;
    return {
      status: r.status,
      body: (await r.json()) as {
        result?: { isError?: boolean; structuredContent: Record<string, unknown> };
        error?: { message: string };
      },
    };
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
async function cachedToken(): Promise<{ token: string; id: string; planId: string }> {
  const { token, id } = await gateway.admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'overlap' });
  const created = await call(token, 'create_research_plan', {
    name: 'Overlap',
    researchQuestion: 'Is the check overlapped?',
    steps: [{ stepType: 'search', instructions: 'Look' }],
  }).response;
  return { token, id, planId: created.body.result!.structuredContent.planId as string };
}

async function loggedCalls(tokenId: string, tool: string): Promise<number> {
  await gateway.runtime.flushToolCallLog();
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from gateway.mcp_tool_call_log where token_id = ${tokenId} and tool = ${tool}`.execute(
    gateway.database.admin as Kysely<unknown>,
  );
  return Number(rows[0]!.n);
}

/** A get_plan_status whose revocation verdict is held back, once its rpc has finished. */
async function readWithVerdictHeld() {
  const { token, id, planId } = await cachedToken();
  rpcs.finished.length = 0;
  gate.hold();
  const read = call(token, 'get_plan_status', { planId });
  await until(() => rpcs.finished.includes('get_plan_status'), 'read');
  return { id, planId, read };
}

describe('the revocation check of a cached token', () => {
  it('runs alongside a read-only call, whose answer waits for it', async () => {
    const { id, planId, read } = await readWithVerdictHeld();
    await sleep(50);
    expect(read.answered.at).toBe(false);
    gate.release();
    const { status, body } = await read.response;
    expect(status).toBe(200);
    expect(body.result?.structuredContent).toMatchObject({ planId, name: 'Overlap' });
    expect(await loggedCalls(id, 'get_plan_status')).toBe(1);
  });

  it('comes first for a call that writes: its rpc starts only once the check passed', async () => {
    const { token } = await cachedToken();
    rpcs.started.length = 0;
    gate.hold();
    const write = call(token, 'create_research_plan', {
      name: 'Later',
      researchQuestion: 'Does the write wait?',
      steps: [{ stepType: 'search', instructions: 'Look' }],
    });
    await sleep(200);
    expect(rpcs.started).toEqual([]);
    gate.release();
    const { status, body } = await write.response;
    expect(status).toBe(200);
    expect(body.result?.isError).toBeUndefined();
    expect(rpcs.started).toEqual(['create_research_plan']);
  });

  it('comes first for requests the SDK serves (here a 2025-era initialize)', async () => {
    const { token } = await cachedToken();
    gate.hold();
    let answered = false;
    const init = rawPost(url, LEGACY_INIT, { authorization: `Bearer ${token}` }).then((r) => {
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
    await gateway.admin.revokeToken(id);
    gate.release(false);
    const { status, body } = await read.response;
    expect(status).toBe(401);
    expect(JSON.stringify(body)).toContain('revoked');
    expect(await loggedCalls(id, 'get_plan_status')).toBe(0);
  });

  it('when it fails for a token still valid, looks the token up and answers the call once', async () => {
    const { id, planId, read } = await readWithVerdictHeld();
    gate.release(false);
    const { status, body } = await read.response;
    expect(status).toBe(200);
    expect(body.result?.structuredContent).toMatchObject({ planId });
    // The speculative read ran and was discarded; the answer comes from the one made after the lookup.
    expect(rpcs.finished.filter((name) => name === 'get_plan_status')).toHaveLength(2);
    expect(await loggedCalls(id, 'get_plan_status')).toBe(1);
  });

  it('refuses every read sent after a revocation committed, on the real check', async () => {
    for (let round = 0; round < 10; round++) {
      const { token, id, planId } = await cachedToken();
      await gateway.admin.revokeToken(id);
      const reads = await Promise.all(
        Array.from({ length: 5 }, () => call(token, 'get_plan_status', { planId }).response),
      );
      expect(reads.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
      expect(await loggedCalls(id, 'get_plan_status')).toBe(0);
    }
  });
});
