import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { artifactV1 } from '@quarry/contracts';
import { sql, withTenant } from '@quarry/db';
import { insertRows } from '../src/store/insert-row.js';
import { as, startTestStore, type TestStore } from './support.js';

// Storage quotas at their owner, over real PostgreSQL: writes racing an org's limit store exactly
// up to it (the usage row's lock orders them), deleting frees what was charged, a replay is not
// charged again, and another org's writes are neither counted nor refused.

let store: TestStore;
/** The default every org gets: 4000 bytes, no artifact limit. */
const DEFAULT_BYTES = 4000;

beforeAll(async () => {
  store = await startTestStore({ storageQuotas: { storageBytes: DEFAULT_BYTES } });
});
afterAll(async () => {
  await store?.close();
});

const finding = (text: string, extra: Partial<artifactV1.StoreResearchRequest> = {}) => ({
  artifactType: artifactV1.ArtifactType.ARTIFACT_TYPE_FINDING,
  title: text,
  content: { text },
  contentText: text,
  tags: [],
  ...extra,
});

/** The operator's own limits for an org, written as the CLI writes them (admin connection). */
async function setQuotas(orgId: string, quotas: { storageBytes?: number; artifacts?: number }) {
  await sql`insert into artifact.org_quotas (org_id, storage_bytes, artifacts)
            values (${orgId}, ${quotas.storageBytes ?? null}, ${quotas.artifacts ?? null})
            on conflict (org_id) do update set storage_bytes = excluded.storage_bytes, artifacts = excluded.artifacts`.execute(
    store.database.admin,
  );
}

async function stored(orgId: string) {
  const { rows } = await sql<{ n: number; bytes: string }>`
    select count(*)::int as n, coalesce(sum(stored_bytes), 0)::text as bytes
    from (select org_id, stored_bytes from artifact.research_artifacts
          union all select org_id, stored_bytes from artifact.research_outputs) s
    where org_id = ${orgId}`.execute(store.database.admin);
  const usage = await sql<{ stored_bytes: string; artifacts: string }>`
    select stored_bytes, artifacts from artifact.org_usage where org_id = ${orgId}`.execute(store.database.admin);
  return {
    items: rows[0]!.n,
    bytes: Number(rows[0]!.bytes),
    usage: usage.rows[0] && { items: Number(usage.rows[0].artifacts), bytes: Number(usage.rows[0].stored_bytes) },
  };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'stored',
    (e: { code?: string }) => e.code ?? 'error',
  );

describe('the artifact quota', () => {
  it('lets 20 concurrent store_research calls store exactly the limit, and refuses the rest naming it', async () => {
    const orgA = randomUUID();
    await setQuotas(orgA, { artifacts: 5 });
    const calls = Array.from({ length: 20 }, (_, i) =>
      store.client.call('storeResearch', finding(`race ${i}`), as(orgA)),
    );
    const outcomes = await Promise.all(calls.map(outcome));
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'QUOTA_EXCEEDED')).toHaveLength(15);
    const after = await stored(orgA);
    expect(after.items).toBe(5);
    expect(after.usage).toEqual({ items: 5, bytes: after.bytes });

    const refusal = await store.client.call('storeResearch', finding('one more'), as(orgA)).catch((e: unknown) => e);
    expect(refusal).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      message: expect.stringMatching(/Quota artifacts exceeded: .*limit is 5 artifacts, it uses 5, .*adds 1/),
      details: { quota: 'artifacts', limit: 5, used: 5, resetsAt: 'never' },
    });
  });

  it('refuses a batch that would pass the limit as a whole, and stores one that fits', async () => {
    const orgA = randomUUID();
    await setQuotas(orgA, { artifacts: 3 });
    // Batch items are store_research arguments as the tool takes them (JSON).
    const batch = (n: number) => ({
      artifacts: Array.from({ length: n }, (_, i) => ({
        artifactType: 'finding',
        title: `batch ${n}/${i}`,
        content: { text: `${i}` },
      })),
    });
    await expect(store.client.call('storeResearchBatch', batch(4), as(orgA))).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    expect((await stored(orgA)).items).toBe(0);
    await expect(store.client.call('storeResearchBatch', batch(3), as(orgA))).resolves.toMatchObject({ stored: 3 });
  });

  it('frees what a deletion removes, and answers a replay at the limit without charging it again', async () => {
    const orgA = randomUUID();
    await setQuotas(orgA, { artifacts: 2 });
    const first = await store.client.call('storeResearch', finding('kept', { idempotencyKey: 'k1' }), as(orgA));
    const second = await store.client.call('storeResearch', finding('to delete'), as(orgA));
    await expect(store.client.call('storeResearch', finding('third'), as(orgA))).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
    });
    const replay = await store.client.call('storeResearch', finding('kept', { idempotencyKey: 'k1' }), as(orgA));
    expect(replay.id).toBe(first.id);

    await store.client.call('deleteArtifact', { artifactId: second.id }, as(orgA));
    expect((await stored(orgA)).usage?.items).toBe(1);
    await expect(store.client.call('storeResearch', finding('third'), as(orgA))).resolves.toMatchObject({
      stored: true,
    });
    const after = await stored(orgA);
    expect(after.usage).toEqual({ items: after.items, bytes: after.bytes });
  });
});

describe('the storage bytes quota (the default every org gets)', () => {
  it('lets concurrent writes of both kinds fill it exactly, never past it', async () => {
    const orgA = randomUUID();
    // Each write is ~ 1000 bytes: 4000 fit, whatever the order they are counted in.
    const text = 'x'.repeat(480);
    const writes = Array.from({ length: 12 }, (_, i) =>
      i % 2 === 0
        ? store.client.call('storeResearch', finding(text, { title: `t${i}` }), as(orgA))
        : store.client.call(
            'storeResearchOutput',
            {
              planId: randomUUID(),
              mediaType: artifactV1.MediaType.MEDIA_TYPE_MARKDOWN,
              title: `t${i}`,
              content: text.repeat(2),
            },
            as(orgA),
          ),
    );
    const outcomes = await Promise.all(writes.map(outcome));
    const after = await stored(orgA);
    expect(after.bytes).toBeLessThanOrEqual(DEFAULT_BYTES);
    expect(after.bytes).toBeGreaterThan(DEFAULT_BYTES - 1000);
    expect(after.usage).toEqual({ items: after.items, bytes: after.bytes });
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(after.items);
    expect(outcomes.filter((o) => o !== 'stored').every((o) => o === 'QUOTA_EXCEEDED')).toBe(true);
  });

  it("does not count or refuse another org's writes while one is at its limit", async () => {
    const full = randomUUID();
    const other = randomUUID();
    await setQuotas(full, { storageBytes: 10 });
    await expect(store.client.call('storeResearch', finding('too big for 10 bytes'), as(full))).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
      details: { quota: 'storage_bytes', limit: 10, used: 0 },
    });
    await expect(store.client.call('storeResearch', finding('fits'), as(other))).resolves.toMatchObject({
      stored: true,
    });
    expect((await stored(full)).usage).toBeUndefined();
    expect((await stored(other)).items).toBe(1);
  });
});

describe('two storing transactions of one org', () => {
  it('are counted one after the other: the second waits for the first, then is refused past the limit', async () => {
    const orgA = randomUUID();
    await setQuotas(orgA, { artifacts: 1 });
    const row = (title: string) => ({
      artifact_type: 'finding',
      source: 'client' as const,
      title,
      content: '{}',
      tags: [],
      stored_bytes: 10,
    });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let charged!: () => void;
    const firstCharged = new Promise<void>((r) => (charged = r));
    const first = withTenant(store.db, { orgId: orgA }, async (trx) => {
      await insertRows(trx, 'artifact.research_artifacts', orgA, [row('first')]);
      charged();
      await held;
    });
    await firstCharged;
    let settled = false;
    const second = outcome(
      withTenant(store.db, { orgId: orgA }, (trx) =>
        insertRows(trx, 'artifact.research_artifacts', orgA, [row('second')]),
      ).finally(() => (settled = true)),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false);
    release();
    await first;
    expect(await second).toBe('QUOTA_EXCEEDED');
    expect((await stored(orgA)).usage).toEqual({ items: 1, bytes: 10 });
  });
});
