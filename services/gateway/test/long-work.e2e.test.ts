import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { buildServer, createGatewayRuntime, loadGatewayConfig } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { startTestGateway } from './harness.js';
import { listenOnLoopback, officialClients } from './official-client.js';
import { startSlowModelServer, type SlowModelServer } from './slow-model-server.js';
import { modernRequest } from './task-requests.js';
import { sleep } from './tool-answers.js';

// Long work for every era, across processes: the whole system with the extraction service's
// real OpenAI provider against a model server on loopback that takes 6 s, and a bound of 2 s on
// how long a call may hold a 2025-era client (in production 45 s against a model deadline of
// 150 s; the ratio is what matters). A 2025-06-18 client (the official SDK, as VS Code speaks it)
// gets a running job within the bound; the gateway that accepted the call is stopped and another
// started; the job finishes in the extraction service all the same and is read back by id, in
// the caller's org only, each read within the bound too. A 2026-07-28 client with the tasks
// extension gets a task as before, and one without it the whole answer, however long it takes.

const SOURCE = 'Moby-Dick; or, The Whale, by Herman Melville. Published 1851 by Harper & Brothers.';
const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, author: { type: 'string' }, year: { type: 'integer' } },
  required: ['title', 'year'],
};
const ANSWER = { title: 'Moby-Dick', author: 'Herman Melville', year: 1851 };
const BOUND_MS = 2_000;
const MODEL_MS = 6_000;
/** What the client sees of the bound: the gateway's, plus the way to and from it on loopback. */
const SEEN_BOUND_MS = BOUND_MS + 700;
const EXTRACT = { name: 'extract_data', arguments: { sourceText: SOURCE, extractionSchema: SCHEMA } };

type Structured = Record<string, unknown>;

let model: SlowModelServer;
let system: Awaited<ReturnType<typeof startTestGateway>>;
let rivalToken: string;
const clients = officialClients();

/** A gateway of its own over the system's database and services: stopping it stops nothing else. */
async function startGateway() {
  const config = loadGatewayConfig({
    DATABASE_URL: system.database.appUrl,
    QUARRY_IDENTITY_KEY: 'k'.repeat(48),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    QUARRY_MCP_CALL_BOUND: `${BOUND_MS}ms`,
  });
  const runtime = await createGatewayRuntime({
    config,
    logger: createLogger({ service: 'gateway-long-work', level: 'silent' }),
    serviceAddresses: system.services.addresses,
  });
  const app = await buildServer(runtime.deps);
  const url = await listenOnLoopback(app);
  return {
    url,
    async close() {
      runtime.beginDrain();
      await app.close();
      await runtime.close();
    },
  };
}

/** The official client speaking 2025-06-18 only, as VS Code does. */
async function vscodeLike(url: string, token = system.token): Promise<Client> {
  const client = await clients.connect(url, token, {
    supportedProtocolVersions: ['2025-06-18'],
    versionNegotiation: { mode: 'legacy' },
  });
  expect(client.getNegotiatedProtocolVersion()).toBe('2025-06-18');
  return client;
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

beforeAll(async () => {
  model = await startSlowModelServer(ANSWER, MODEL_MS);
  system = await startTestGateway({
    EXTRACTION_PROVIDER: 'openai',
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'slow-model',
    OPENAI_API_KEY: 'sk-test-0123456789',
    QUARRY_MCP_CALL_BOUND: `${BOUND_MS}ms`,
  });
  await system.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await system.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  rivalToken = (await system.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' })).token;
}, 120_000);

afterAll(async () => {
  await clients.closeAll();
  await system?.close();
  await model?.close();
});

describe('a model-backed extract_data longer than a 2025-era client waits', () => {
  it('answers within the bound with a job, which completes after a gateway restart and is read back', async () => {
    model.delayMs = MODEL_MS;
    const asked = model.requests;
    const first = await startGateway();
    const client = await vscodeLike(first.url);
    const { value: answer, ms } = await timed(client.callTool(EXTRACT));
    expect(ms).toBeLessThan(SEEN_BOUND_MS);
    const job = answer.structuredContent as Structured;
    expect(answer.isError ? answer.structuredContent : undefined).toBeUndefined();
    expect(job).toMatchObject({ status: 'running', provider: 'openai', pollTool: 'get_extraction_job' });
    expect(job.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(job.instructions).toMatch(/get_extraction_job/);
    expect(answer.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: `quarry://extraction-jobs/${job.jobId as string}` }),
    );

    // The gateway that took the call stops; the work is the extraction service's.
    await first.close();
    const second = await startGateway();
    const reader = await vscodeLike(second.url);
    let read: Structured = {};
    for (let i = 0; i < 12 && read.status !== 'completed'; i++) {
      // Asked to wait 60 s, the read is held below the bound for this client.
      const { value, ms: readMs } = await timed(
        reader.callTool({ name: 'get_extraction_job', arguments: { jobId: job.jobId, waitSeconds: 60 } }),
      );
      expect(readMs).toBeLessThan(SEEN_BOUND_MS);
      expect(value.isError).toBeFalsy();
      read = value.structuredContent as Structured;
    }
    expect(read).toMatchObject({ jobId: job.jobId, status: 'completed', data: ANSWER, provider: 'openai' });
    expect(read.model).toBe('slow-model');
    expect(model.requests).toBe(asked + 1);

    const stored = await reader.callTool({ name: 'get_extraction', arguments: { id: read.extractionId } });
    expect((stored.structuredContent as Structured).data).toEqual(ANSWER);
    const resource = await reader.readResource({ uri: `quarry://extraction-jobs/${job.jobId as string}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ status: 'completed' });

    // Another org's token: no such job, as for an id that never existed.
    const rival = await vscodeLike(second.url, rivalToken);
    const foreign = await rival.callTool({ name: 'get_extraction_job', arguments: { jobId: job.jobId } });
    expect(foreign.isError).toBe(true);
    expect((foreign.structuredContent as { error: { code: string } }).error.code).toBe('JOB_NOT_FOUND');
    await second.close();
  }, 60_000);
});

describe('the same call from a 2026-07-28 client', () => {
  it('with the tasks extension gets a task that settles to the completed result, as before', async () => {
    model.delayMs = MODEL_MS;
    const { value: created, ms } = await timed(modernRequest(system.url, system.token, 'tools/call', EXTRACT));
    expect(ms).toBeLessThan(SEEN_BOUND_MS);
    const task = created.json.result as { resultType: string; status: string; taskId: string };
    expect(task).toMatchObject({ resultType: 'task', status: 'working' });
    let state: Structured = {};
    for (let i = 0; i < 100 && (state.status ?? 'working') === 'working'; i++) {
      await sleep(200);
      state = (await modernRequest(system.url, system.token, 'tasks/get', { taskId: task.taskId })).json.result;
    }
    expect(state.status).toBe('completed');
    const result = state.result as { structuredContent: Structured };
    expect(result.structuredContent).toMatchObject({ status: 'completed', data: ANSWER, provider: 'openai' });
    expect(result.structuredContent.jobId).toBeUndefined();
  }, 60_000);

  it('without it waits for the whole answer, past the 2025-era bound', async () => {
    model.delayMs = BOUND_MS + 1_000;
    const { value, ms } = await timed(modernRequest(system.url, system.token, 'tools/call', EXTRACT, { tasks: false }));
    expect(ms).toBeGreaterThanOrEqual(BOUND_MS + 1_000);
    expect(value.json.result.structuredContent).toMatchObject({ status: 'completed', data: ANSWER });
  }, 30_000);
});
