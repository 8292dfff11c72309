import { describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { compactOutbox } from '@quarry/events';
import { callTool, quarry, search, startTestSystem, system, until, useTestSystem } from './system-support.js';

// `quarry reindex` rebuilds from the source tables: after the outbox was compacted (no
// content.created left to replay) every stored artifact and deliverable is found again, with its
// plan, tags and creation time; deleted ones stay gone; and the indexer carries on afterwards.

const { token } = useTestSystem();

async function contentEventsInOutbox(): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    select count(*)::text as n from events.outbox where topic = 'content.created'`.execute(system.admin);
  return Number(rows[0]!.n);
}

describe('quarry reindex from the source tables', () => {
  it('finds everything stored after compaction emptied the outbox; deleted items stay gone', async () => {
    // A second org, whose content must stay its own through the rebuild.
    await quarry('org', 'create', 'beta');
    await quarry('user', 'add', 'bo@beta.test', '--org', 'beta');
    const betaToken = (await quarry('token', 'create', '--org', 'beta', '--user', 'bo@beta.test')).out.trim();
    let running = await startTestSystem();
    const { url } = running;
    let ids: { glacier: string; moraine: string; cirque: string; report: string; planId: string };
    let createdAt: string | undefined;
    try {
      const plan = await callTool<{ planId: string }>(url, token(), 'create_research_plan', {
        name: 'Glaciers',
        researchQuestion: 'How do glaciers shape valleys?',
        steps: [{ stepType: 'search', instructions: 'Find sources.' }],
      });
      const store = async (title: string, contentText: string, extra: Record<string, unknown> = {}) =>
        (
          await callTool<{ id: string }>(url, token(), 'store_research', {
            artifactType: 'finding',
            title,
            content: {},
            contentText,
            ...extra,
          })
        ).id;
      const glacier = await store('Glacier erosion', 'Glaciers carve U-shaped valleys by plucking and abrasion.', {
        planId: plan.planId,
        tags: ['ice'],
      });
      const moraine = await store('Moraines', 'Moraines are ridges of till a glacier deposits at its margins.');
      const cirque = await store('Cirques', 'A cirque is a bowl a glacier carves at the head of a valley.');
      const report = (
        await callTool<{ outputId: string }>(url, token(), 'store_research_output', {
          planId: plan.planId,
          mediaType: 'markdown',
          title: 'Glacial landforms report',
          content: '# Landforms\n\nDrumlins and eskers mark where ice sheets flowed.',
        })
      ).outputId;
      ids = { glacier, moraine, cirque, report, planId: plan.planId };
      await callTool(url, betaToken, 'store_research', {
        artifactType: 'finding',
        title: 'Beta moraines',
        content: {},
        contentText: 'Beta keeps its own notes on terminal moraines and till.',
      });
      // A retag (a newer event of the same source) and a deletion.
      await callTool(url, token(), 'update_artifact_tags', { id: glacier, add: ['valleys'], remove: [] });
      await callTool(url, token(), 'delete_artifact', { artifactId: cirque });
      await until(async () => (await search(url, token(), 'drumlins eskers')).some((h) => h.sourceId === report));
      await until(async () => {
        const hit = (await search(url, token(), 'plucking abrasion')).find((h) => h.sourceId === glacier);
        createdAt = hit?.createdAt;
        return hit?.tags?.includes('valleys') ?? false;
      });
      await until(async () => (await search(url, token(), 'cirque bowl')).every((h) => h.sourceId !== cirque));
    } finally {
      await running.close();
    }

    // Every event is consumed; pretend it is a month old and compact with the default week.
    await sql`update events.outbox set created_at = now() - interval '30 days'`.execute(system.admin);
    expect(await compactOutbox(system.admin, { retentionMs: 7 * 86_400_000 })).toBeGreaterThan(0);
    expect(await contentEventsInOutbox()).toBe(0);

    const rebuilt = await quarry('reindex');
    expect(rebuilt).toMatchObject({
      code: 0,
      out: expect.stringMatching(
        /Reindexing 4 stored source\(s\) of 2 org\(s\)[\s\S]*Reindexed 4 source\(s\) \(\d+ chunk\(s\)\) in [\d.]+ s with embedder local-/,
      ),
    });

    running = await startTestSystem();
    try {
      const { url } = running;
      const glacier = (await search(url, token(), 'plucking abrasion')).find((h) => h.sourceId === ids.glacier);
      expect(glacier).toMatchObject({ planId: ids.planId, createdAt });
      expect(glacier?.tags?.sort()).toEqual(['ice', 'valleys']);
      expect((await search(url, token(), 'till ridges margins'))[0]?.sourceId).toBe(ids.moraine);
      // Each org finds its own content only, as before the rebuild.
      expect((await search(url, token(), 'terminal moraines till')).map((h) => h.title)).not.toContain('Beta moraines');
      expect((await search(url, betaToken, 'terminal moraines till')).map((h) => h.title)).toEqual(['Beta moraines']);
      expect((await search(url, token(), 'drumlins eskers'))[0]?.sourceId).toBe(ids.report);
      expect((await search(url, token(), 'cirque bowl head')).map((h) => h.sourceId)).not.toContain(ids.cirque);
      expect((await search(url, token(), 'valleys', { tags: ['valleys'] })).map((h) => h.sourceId)).toEqual([
        ids.glacier,
      ]);

      // The indexer carries on from where the rebuild began: new content is indexed as usual.
      const fjord = (
        await callTool<{ id: string }>(url, token(), 'store_research', {
          artifactType: 'finding',
          title: 'Fjords',
          content: {},
          contentText: 'Fjords are drowned glacial troughs.',
        })
      ).id;
      await until(async () => (await search(url, token(), 'drowned troughs'))[0]?.sourceId === fjord);
    } finally {
      await running.close();
    }
  });
});
