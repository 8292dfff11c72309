import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isCreateTaskResultV2, isDetailedTaskV2 } from '@modelcontextprotocol/ext-tasks/core/v2';
import { identityV1 } from '@quarry/contracts';
import { buildServer, createGatewayRuntime, loadGatewayConfig } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import type { FastifyInstance } from 'fastify';
import { sql, type Kysely } from 'kysely';
import { startGatewayOnly } from './gateway-only.js';
import { connectClient } from './official-client.js';
import { slowExtraction, type SlowExtraction } from './slow-extraction.js';
import { modernRequest, TASKS_EXTENSION } from './task-requests.js';
import { sleep } from './tool-answers.js';

// The tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) for extract_data with the
// server's model, on the gateway alone (its runtime and database; the extraction service a stub
// whose model takes its time): a client that declares the extension gets a task handle at once,
// polls tasks/get until the call's CallToolResult is there, and can cancel. The
// state is in PostgreSQL (gateway.mcp_tasks), so a second gateway replica over the same database
// answers for it and relays a cancellation to the replica running it. A task is its creator's:
// another token or another org is told exactly what a missing task tells. Clients without the
// extension, and 2025-era clients, keep the synchronous call. Wire shapes are checked with the
// extension's own package (@modelcontextprotocol/ext-tasks).

const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
const ANSWER = { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 };
const EXTRACT = { name: 'extract_data', arguments: { sourceText: SOURCE, extractionSchema: SCHEMA } };

let model: SlowExtraction;
let gateway: Awaited<ReturnType<typeof startGatewayOnly>>;
let admin: Kysely<unknown>;
let replicaB: { app: FastifyInstance; url: string; close(): Promise<void> };
let secondToken: string;
let rivalToken: string;

/** Another gateway replica over the same database and (stub) services: no state shared but PostgreSQL. */
async function startReplica() {
  const config = loadGatewayConfig({
    DATABASE_URL: gateway.database.appUrl,
    QUARRY_IDENTITY_KEY: 'k'.repeat(48),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
  });
  // The identity service is each replica's own, in-process.
  const { [`${identityV1.protobufPackage}.IdentityService`]: _identity, ...services } = gateway.stub.backends;
  const runtime = await createGatewayRuntime({
    config,
    logger: createLogger({ service: 'gateway-replica-b', level: 'silent' }),
    backends: services,
  });
  const app = await buildServer(runtime.deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}

async function createTask(url = gateway.url, token = gateway.token) {
  const answer = await modernRequest(url, token, 'tools/call', EXTRACT);
  expect(answer.json.error).toBeUndefined();
  return answer.json.result as Record<string, unknown> & { taskId: string };
}

async function getTask(taskId: string, url = gateway.url, token = gateway.token) {
  return (await modernRequest(url, token, 'tasks/get', { taskId })).json;
}

/** Polls tasks/get until the task leaves 'working'. */
async function settled(taskId: string, url = gateway.url) {
  for (let i = 0; i < 200; i++) {
    const { result } = await getTask(taskId, url);
    if (result?.status !== 'working') return result as Record<string, unknown>;
    await sleep(50);
  }
  throw new Error(`task ${taskId} is still working`);
}

beforeAll(async () => {
  model = slowExtraction(ANSWER);
  gateway = await startGatewayOnly();
  gateway.stub.reply('extract_data', model.reply);
  admin = gateway.database.admin as Kysely<unknown>;
  secondToken = (await gateway.admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', name: 'second' })).token;
  await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  rivalToken = (await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' })).token;
  replicaB = await startReplica();
}, 90_000);

afterAll(async () => {
  await replicaB?.close();
  await gateway?.close();
});

describe('a client that declares the tasks extension', () => {
  it('is told by server/discover that the server supports it', async () => {
    const { json } = await modernRequest(gateway.url, gateway.token, 'server/discover', {});
    expect(json.result.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });
  });

  it('gets a task at once, polls it to completed, and the result is what the synchronous call returns', async () => {
    model.delayMs = 600;
    const before = model.stored;
    const started = Date.now();
    const created = await createTask();
    expect(Date.now() - started).toBeLessThan(600);
    expect(isCreateTaskResultV2(created)).toBe(true);
    expect(created).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000 });
    // Durable before the answer: another replica already finds it.
    const seen = await getTask(created.taskId, replicaB.url);
    expect(seen.result).toMatchObject({ resultType: 'complete', taskId: created.taskId, status: 'working' });

    const done = await settled(created.taskId);
    expect(isDetailedTaskV2(done)).toBe(true);
    expect(done).toMatchObject({ taskId: created.taskId, status: 'completed' });
    const result = done.result as {
      content: Array<{ type: string; text: string }>;
      structuredContent: Record<string, unknown>;
    };
    expect(result.structuredContent).toMatchObject({ status: 'completed', provider: 'openai', data: ANSWER });
    expect(result).toMatchObject({ resultType: 'complete' });
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
    expect(model.stored).toBe(before + 1);

    // The same call from a client without the extension: answered in the request, the same result.
    model.delayMs = 0;
    const sync = await modernRequest(gateway.url, gateway.token, 'tools/call', EXTRACT, { tasks: false });
    expect(sync.json.result.resultType).toBe('complete');
    const { extractionId: a, ...taskData } = result.structuredContent;
    const { extractionId: b, ...syncData } = sync.json.result.structuredContent as Record<string, unknown>;
    expect(a).not.toEqual(b);
    expect(taskData).toEqual(syncData);
    expect(result.content.length).toBe(sync.json.result.content.length);
  });

  it('cancels from another replica: the running call is aborted and the task reads cancelled', async () => {
    model.delayMs = 8_000;
    const before = { stored: model.stored, aborted: model.aborted, requests: model.requests };
    const created = await createTask();
    // Wait for the model to be called, so the cancellation has a running call to stop.
    for (let i = 0; i < 100 && model.requests === before.requests; i++) await sleep(50);
    const ack = await modernRequest(replicaB.url, gateway.token, 'tasks/cancel', { taskId: created.taskId });
    expect(ack.json.result).toMatchObject({ resultType: 'complete' });
    const started = Date.now();
    const done = await settled(created.taskId, replicaB.url);
    expect(done).toMatchObject({ status: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(4_000);
    for (let i = 0; i < 100 && model.aborted === before.aborted; i++) await sleep(50);
    expect(model.aborted).toBe(before.aborted + 1);
    expect(model.stored).toBe(before.stored);
    // Cancelling a finished task is acknowledged and changes nothing.
    const again = await modernRequest(gateway.url, gateway.token, 'tasks/cancel', { taskId: created.taskId });
    expect(again.json.result).toMatchObject({ resultType: 'complete' });
    expect((await getTask(created.taskId)).result).toMatchObject({ status: 'cancelled' });
  });
});

describe('whose task it is', () => {
  it('answers another token of the same org, and another org, exactly as for a missing task', async () => {
    model.delayMs = 0;
    const created = await createTask();
    await settled(created.taskId);
    const missing = '00000000-0000-4000-8000-000000000000';
    const errorOf = async (method: string, taskId: string, token: string) =>
      (await modernRequest(gateway.url, token, method, { taskId })).json.error;
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const none = await errorOf(method, missing, gateway.token);
      expect(none).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
      expect(await errorOf(method, created.taskId, secondToken)).toEqual(none);
      expect(await errorOf(method, created.taskId, rivalToken)).toEqual(none);
      expect(await errorOf(method, 'not-a-uuid', gateway.token)).toEqual(none);
    }
    // The foreign cancels changed nothing.
    expect((await getTask(created.taskId)).result).toMatchObject({ status: 'completed' });
  });
});

describe('clients without the extension', () => {
  it('a 2026-07-28 client gets the synchronous call, and a tasks request is refused for the missing capability', async () => {
    model.delayMs = 0;
    const sync = await modernRequest(gateway.url, gateway.token, 'tools/call', EXTRACT, { tasks: false });
    expect(sync.json.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'completed' } });
    const created = await createTask();
    const refused = await modernRequest(
      gateway.url,
      gateway.token,
      'tasks/get',
      { taskId: created.taskId },
      { tasks: false },
    );
    expect(refused.json.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
    // The capability is checked before the params: every tasks method, whatever it carries.
    for (const [method, params] of [
      ['tasks/update', { taskId: created.taskId }],
      ['tasks/cancel', {}],
      ['tasks/get', { taskId: 42 }],
    ] as const) {
      const answer = await modernRequest(gateway.url, gateway.token, method, params, { tasks: false });
      expect(answer.json.error).toMatchObject({ code: -32021 });
    }
    // A client that declared it gets a params error that names the field.
    const malformed = await modernRequest(gateway.url, gateway.token, 'tasks/update', { taskId: created.taskId });
    expect(malformed.json.error).toMatchObject({ code: -32602, message: expect.stringContaining('inputResponses') });
    await settled(created.taskId);
  });

  it('a 2025-era client gets the synchronous call', async () => {
    const client = await connectClient(gateway.url, gateway.token, 'legacy');
    try {
      const result = await client.callTool(EXTRACT);
      expect(result.structuredContent).toMatchObject({ status: 'completed', provider: 'openai', data: ANSWER });
    } finally {
      await client.close();
    }
  });
});

describe('tasks nobody will finish', () => {
  const insert = async (id: string, runDeadline: string, expiresAt: string) => {
    const { rows } = await sql<{ org_id: string; token_id: string; user_id: string }>`
      select org_id, id as token_id, user_id from identity.personal_access_tokens where id = ${gateway.tokenId}`.execute(
      admin,
    );
    const owner = rows[0]!;
    await sql`
      insert into gateway.mcp_tasks (id, org_id, token_id, user_id, tool, status, created_at, updated_at, run_deadline, expires_at)
      values (${id}, ${owner.org_id}, ${owner.token_id}, ${owner.user_id}, 'extract_data', 'working',
        now() - interval '10 minutes', now() - interval '10 minutes', ${runDeadline}::timestamptz, ${expiresAt}::timestamptz)`.execute(
      admin,
    );
  };

  it('reads a task its crashed replica left working past its run deadline as failed', async () => {
    const id = '11111111-1111-4111-8111-111111111111';
    await insert(id, new Date(Date.now() - 60_000).toISOString(), new Date(Date.now() + 600_000).toISOString());
    const { result } = await getTask(id);
    expect(isDetailedTaskV2(result)).toBe(true);
    expect(result).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(result.statusMessage).toMatch(/stopped before it finished/);
  });

  it('forgets an expired task: it is missing', async () => {
    const id = '22222222-2222-4222-8222-222222222222';
    await insert(id, new Date(Date.now() - 120_000).toISOString(), new Date(Date.now() - 60_000).toISOString());
    expect((await getTask(id)).error).toEqual({ code: -32602, message: 'Failed to retrieve task: Task not found' });
  });
});
