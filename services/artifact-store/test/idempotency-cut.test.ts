import { randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql } from '@quarry/db';
import { createGrpcClient, createIdentitySigner } from '@quarry/grpc';
import { as, IDENTITY_KEY, startTestStore, type TestStore } from './support.js';

// The ambiguous commit: a batch is committed, but the connection is cut before its answer reaches
// the client, which sees only a failed call. Retried with the same idempotency keys, the batch gets
// the first call's artifacts: every item is stored exactly once, with exactly one event.

/**
 * A TCP relay between the client and the store. While `hold` is set, what the store sends back is
 * swallowed (the client hears nothing), and `cut()` drops every connection at once.
 */
function startRelay(target: string): Promise<{ address: string; hold: boolean; cut(): void; close(): Promise<void> }> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const sockets = new Set<Socket>();
  const relay = {
    address: '',
    hold: false,
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () => new Promise<void>((resolve) => (relay.cut(), server.close(() => resolve()))),
  };
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => relay.hold || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      relay.address = `127.0.0.1:${(server.address() as { port: number }).port}`;
      resolve(relay);
    }),
  );
}

let store: TestStore;
let relay: Awaited<ReturnType<typeof startRelay>>;
beforeAll(async () => {
  store = await startTestStore();
  relay = await startRelay(store.address);
});
afterAll(async () => {
  await relay?.close();
  await store?.close();
});

/** Artifacts stored under these keys, and their content.created events (as the admin). */
async function storedUnder(keys: readonly string[]): Promise<{ ids: string[]; events: number }> {
  const { rows } = await sql<{ id: string; events: number }>`
    select t.id, (select count(*)::int from events.outbox o where o.payload->>'sourceId' = t.id::text) as events
    from artifact.research_artifacts t where t.idempotency_key = any(${keys})`.execute(store.database.admin);
  return { ids: rows.map((r) => r.id), events: rows.reduce((n, r) => n + r.events, 0) };
}

describe('a storing call whose connection is cut after its commit', () => {
  it('stores each item exactly once when retried with the same keys', async () => {
    const client = createGrpcClient(artifactV1.ArtifactServiceClient, relay.address, {
      signer: createIdentitySigner({ key: IDENTITY_KEY, issuer: 'test' }),
    });
    const orgId = randomUUID();
    const keys = Array.from({ length: 50 }, () => `import-${randomUUID()}`);
    const artifacts = keys.map((idempotencyKey, i) => ({
      artifactType: 'finding',
      title: `Cut ${i}`,
      content: { i },
      contentText: `Item ${i} of a batch whose answer is lost.`,
      idempotencyKey,
    }));
    try {
      await client.call('listTags', {}, as(orgId)); // the connection is up before the answer is held

      relay.hold = true;
      const first = client.call('storeResearchBatch', { artifacts }, as(orgId)).then(
        () => 'answered',
        () => 'failed',
      );
      // Committed on the server; the client has heard nothing. Then the connection drops.
      for (let at = Date.now(); (await storedUnder(keys)).ids.length < keys.length;) {
        if (Date.now() - at > 10_000) throw new Error('the batch was not committed');
        await new Promise((r) => setTimeout(r, 20));
      }
      relay.cut();
      expect(await first).toBe('failed');

      relay.hold = false;
      const retried = await client.call('storeResearchBatch', { artifacts }, as(orgId));
      const stored = await storedUnder(keys);
      expect(retried).toMatchObject({ stored: 50, refused: 0 });
      expect(new Set(retried.results.map((r) => r.id))).toEqual(new Set(stored.ids));
      expect(stored.ids).toHaveLength(50);
      expect(stored.events).toBe(50);
    } finally {
      client.close();
    }
  });
});
