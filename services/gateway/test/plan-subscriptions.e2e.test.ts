import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { type Client, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { buildServer, createGatewayRuntime, loadGatewayConfig } from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { sql } from 'kysely';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';
import { rawPost } from './mcp-requests.js';
import { listenForPlans, planUris, type PlanListener } from './plan-listener.js';
import { sleep, toolsOf } from './tool-answers.js';

// Change notifications for plan resources end to end: 2026-07-28 clients listen through one
// gateway replica while the plan is changed through the tools of another replica on the same
// database, by another token of the same org; the change travels through the plan engine's
// PostgreSQL feed. Another org hears nothing of it.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let replica: Awaited<ReturnType<typeof startReplica>>;
let bobToken: string;
let globexToken: string;
const clients: Client[] = [];
// Load-sensitive: a whole system starts twice, and a notification may take a while on a busy machine.
jest.setTimeout(120_000);
const listeners: PlanListener[] = [];

/** A second gateway process's worth (runtime + HTTP server) on the same database and services. */
async function startReplica() {
  const config = loadGatewayConfig({
    DATABASE_URL: gateway.database.appUrl,
    QUARRY_IDENTITY_KEY: 'k'.repeat(48),
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
  });
  const logger = createLogger({ service: 'gateway-replica-test', level: 'silent' });
  const runtime = await createGatewayRuntime({ config, logger, serviceAddresses: gateway.services.addresses });
  const app = await buildServer(runtime.deps);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}

async function client(url: string, token: string, era: 'legacy' | 'modern' = 'modern') {
  const connected = await connectClient(url, token, era);
  clients.push(connected);
  return connected;
}

async function listen(url: string, token: string, uris: readonly string[]) {
  const listener = await listenForPlans(url, token, uris);
  listeners.push(listener);
  return listener;
}

async function createPlan(url: string, token: string, name: string): Promise<string> {
  const { ok } = toolsOf(await client(url, token));
  const created = await ok('create_research_plan', {
    name,
    researchQuestion: `${name}?`,
    steps: [
      { stepType: 'search', instructions: 'Find sources' },
      { stepType: 'synthesize', instructions: 'Write it up' },
    ],
  });
  return created.data.planId as string;
}

beforeAll(async () => {
  gateway = await startTestGateway();
  await gateway.admin.addUser({ email: 'bob@acme.test', orgSlug: 'acme', name: 'Bob' });
  bobToken = (await gateway.admin.createToken({ orgSlug: 'acme', email: 'bob@acme.test', name: 'bob' })).token;
  await gateway.admin.createOrg({ slug: 'globex', name: 'Globex' });
  await gateway.admin.addUser({ email: 'gina@globex.test', orgSlug: 'globex', name: 'Gina' });
  globexToken = (await gateway.admin.createToken({ orgSlug: 'globex', email: 'gina@globex.test', name: 'gina' })).token;
  replica = await startReplica();
});
afterAll(async () => {
  for (const listener of listeners) await listener.close().catch(() => {});
  for (const connected of clients) await connected.close().catch(() => {});
  await replica?.close().catch(() => {});
  await gateway?.close();
});

describe('a plan listened to on one replica and changed through another', () => {
  it('notifies both plan resources for each change: claimed, submitted, review requested and decided, archived, unarchived', async () => {
    const planId = await createPlan(gateway.url, gateway.token, 'Watched');
    const [status, report] = planUris(planId);
    const listener = await listen(gateway.url, gateway.token, [status!, report!]);
    expect(listener.subscription.honoredFilter).toEqual({ resourceSubscriptions: [status, report] });

    // Bob (another token of Ada's org) works the plan through the other replica.
    const bob = toolsOf(await client(replica.url, bobToken)).ok;
    const changes: Array<() => Promise<unknown>> = [];
    let stepId = '';
    changes.push(async () => (stepId = (await bob('get_next_step', { planId })).data.step.stepId as string));
    changes.push(() => bob('submit_step_result', { planId, stepId, result: { sources: { count: 2 } } }));
    changes.push(async () => (stepId = (await bob('get_next_step', { planId })).data.step.stepId as string));
    changes.push(() => bob('request_user_review', { planId, stepId, summary: 'Two sources.', questions: ['More?'] }));
    changes.push(() => bob('submit_user_decision', { planId, stepId, decision: 'approve' }));
    changes.push(() => bob('archive_plan', { planId }));
    changes.push(() => bob('unarchive_plan', { planId }));
    for (const change of changes) {
      const from = listener.received.length;
      await change();
      await listener.waitFor(status!, from);
      await listener.waitFor(report!, from);
    }
  });

  it('reaches a listener on the second replica when the plan changes through the first', async () => {
    const planId = await createPlan(gateway.url, gateway.token, 'Across');
    const [status, report] = planUris(planId);
    const listener = await listen(replica.url, bobToken, [report!]);
    const from = listener.received.length;
    await toolsOf(await client(gateway.url, gateway.token)).ok('cancel_plan', { planId, reason: 'Not needed.' });
    await listener.waitFor(report!, from);
    // Only what it subscribed to: the status URI was not asked for.
    expect(listener.received).not.toContain(status);
  });

  it('notifies the report, and only the report, when a deliverable of the plan is stored', async () => {
    const planId = await createPlan(gateway.url, gateway.token, 'Delivered');
    const syncPlan = await createPlan(gateway.url, gateway.token, 'Sync');
    const [status, report] = planUris(planId);
    const [sync] = planUris(syncPlan);
    const listener = await listen(replica.url, gateway.token, [status!, report!, sync!]);
    const ada = toolsOf(await client(gateway.url, gateway.token)).ok;
    // The plan's creation may still be on its way to the replica. Two changes made after the
    // listen opened, both heard, mean a change committed after the creation has arrived: the feed
    // delivers in commit order, so the creation cannot arrive from here on.
    await ada('archive_plan', { planId: syncPlan });
    await ada('unarchive_plan', { planId: syncPlan });
    await listener.waitFor(sync!, (await listener.waitFor(sync!)) + 1);
    const from = listener.received.length;

    await ada('store_research_output', { planId, mediaType: 'markdown', title: 'Brief', content: '# Brief' });
    await listener.waitFor(report!, from);
    // A plan change afterwards notifies both; before it, the deliverable notified the report alone.
    await ada('get_next_step', { planId });
    const at = await listener.waitFor(status!, from);
    expect(listener.received.slice(from, at).filter((uri) => uri !== sync)).toEqual([report]);
  });

  it('notifies a deleted plan once more, for its deletion', async () => {
    const planId = await createPlan(gateway.url, gateway.token, 'Doomed');
    const [status, report] = planUris(planId);
    const listener = await listen(replica.url, gateway.token, [status!, report!]);
    const deleted = await toolsOf(await client(gateway.url, bobToken)).ok('delete_plan', { planId });
    expect(deleted.data).toMatchObject({ planId, deleted: true });
    await listener.waitFor(status!);
    await listener.waitFor(report!);
  });
});

describe('tenant isolation', () => {
  it("acknowledges another org's plan exactly like a missing one, and never tells of its changes", async () => {
    const acmePlan = await createPlan(gateway.url, gateway.token, 'Acme secret');
    const globexPlan = await createPlan(gateway.url, globexToken, 'Globex own');
    const missing = planUris(randomUUID());
    const foreign = planUris(acmePlan);
    const own = planUris(globexPlan);

    const prying = await listen(gateway.url, globexToken, [...foreign, ...own]);
    const guessing = await listen(gateway.url, globexToken, [...missing, ...own]);
    expect(prying.subscription.honoredFilter).toEqual({ resourceSubscriptions: [...foreign, ...own] });
    expect(guessing.subscription.honoredFilter).toEqual({ resourceSubscriptions: [...missing, ...own] });
    // Ada's own listener proves the change was heard by this replica.
    const ada = await listen(gateway.url, gateway.token, foreign);

    await toolsOf(await client(replica.url, gateway.token)).ok('get_next_step', { planId: acmePlan });
    await ada.waitFor(foreign[0]!);
    // Globex changes its own plan twice afterwards. Its creation may also still reach these
    // streams, but of two notifications heard, one is then of a change made after Acme's; the
    // feed delivers in commit order, so a notification of Acme's change would have come first.
    const globex = toolsOf(await client(replica.url, globexToken)).ok;
    await globex('archive_plan', { planId: globexPlan });
    await globex('unarchive_plan', { planId: globexPlan });
    for (const listener of [prying, guessing]) {
      await listener.waitFor(own[0]!, (await listener.waitFor(own[0]!)) + 1);
      expect(listener.received.filter((uri) => !own.includes(uri))).toEqual([]);
    }
  });
});

describe('eras and credentials', () => {
  it('declares resources.subscribe to 2026-07-28 clients only; a 2025-era client cannot listen', async () => {
    const modern = await client(gateway.url, gateway.token, 'modern');
    expect(modern.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const legacy = await client(gateway.url, gateway.token, 'legacy');
    expect(legacy.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
    const refused = await legacy.listen({ resourceSubscriptions: planUris(randomUUID()) }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SdkError);
    expect((refused as SdkError).code).toBe(SdkErrorCode.MethodNotSupportedByProtocolVersion);
    // The 2025 way, resources/subscribe, is not served: nothing could carry its notifications.
    const subscribe = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'resources/subscribe',
      params: { uri: planUris(randomUUID())[0] },
    });
    const answer = await rawPost(gateway.url, subscribe, {
      authorization: `Bearer ${gateway.token}`,
      'mcp-protocol-version': '2025-11-25',
    });
    expect(answer.json.error).toMatchObject({ code: -32601 });
  });

  it('refuses a credential without quarry:read', async () => {
    const { token } = await gateway.admin.createToken({
      orgSlug: 'acme',
      email: 'bob@acme.test',
      name: 'write only',
      scopes: ['quarry:write'],
    });
    const writer = await client(gateway.url, token);
    await expect(writer.listen({ resourceSubscriptions: planUris(randomUUID()) })).rejects.toThrow();
  });
});

describe('the feed from PostgreSQL', () => {
  it('tells every listener its plans may have changed when the feed comes back after a loss', async () => {
    const planId = await createPlan(gateway.url, gateway.token, 'Resumed');
    const [status, report] = planUris(planId);
    const listener = await listen(gateway.url, gateway.token, [status!, report!]);
    const from = listener.received.length;
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
              where application_name = 'quarry-gateway-plans-listen' and datname = current_database()`.execute(
      gateway.database.admin,
    );
    await listener.waitFor(status!, from);
    await listener.waitFor(report!, from);
  });

  it('keeps nothing once the streams are closed', async () => {
    const subscriptions = gateway.runtime.deps.planSubscriptions!;
    expect(subscriptions.openCount()).toBeGreaterThan(0);
    for (const listener of listeners.splice(0)) await listener.close();
    for (let waited = 0; subscriptions.openCount() > 0 && waited < 30_000; waited += 25) await sleep(25);
    expect(subscriptions.openCount()).toBe(0);
  });
});

describe('a replica shutting down', () => {
  it('ends its listen streams instead of waiting on them, so the client can listen again elsewhere', async () => {
    const planId = await createPlan(gateway.url, gateway.token, 'Moving');
    const [status] = planUris(planId);
    const leaving = await listenForPlans(replica.url, gateway.token, [status!]);
    await replica.close();
    expect(await leaving.subscription.closed).toBe('remote');
    await leaving.client.close();
    const staying = await listen(gateway.url, gateway.token, [status!]);
    await toolsOf(await client(gateway.url, bobToken)).ok('get_next_step', { planId });
    await staying.waitFor(status!);
  });
});
