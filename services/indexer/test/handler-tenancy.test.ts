import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { assertTenantSafety, rlsReport, sql, withTenant } from '@quarry/db';
import { artifact, database, setup, sha256, useHandlerDatabase } from './handler-support.js';
import { dumpIndexedSources } from './helpers.js';

// Row-level security on the handler's own table (real PostgreSQL, see handler-support.ts).

useHandlerDatabase();

describe('tenancy of indexer.indexed_sources', () => {
  it('is RLS-protected: another org neither sees nor changes the rows', async () => {
    await expect(
      assertTenantSafety(database.admin, { schemas: ['indexer'], appRole: database.appRole }),
    ).resolves.toBeUndefined();
    const tables = (await rlsReport(database.admin, ['indexer'])).filter(
      (t) => !t.table.startsWith('kysely_migration'),
    );
    expect(
      tables.map((t) => ({
        table: t.table,
        hasOrgId: t.hasOrgId,
        enabled: t.rlsEnabled,
        forced: t.rlsForced,
        policies: t.policies,
      })),
    ).toEqual([
      { table: 'indexed_sources', hasOrgId: true, enabled: true, forced: true, policies: ['tenant_isolation'] },
    ]);

    const { handle } = await setup();
    const [orgA, orgB] = [randomUUID(), randomUUID()];
    const event = await artifact(orgA, randomUUID(), 'Private', 'Org A only.');
    await handle([event]);
    const asB = <T>(fn: Parameters<typeof withTenant<unknown, T>>[2]) => withTenant(database.app, { orgId: orgB }, fn);
    expect((await asB((trx) => sql`select * from indexer.indexed_sources`.execute(trx))).rows).toEqual([]);
    const updated = await asB((trx) =>
      sql`update indexer.indexed_sources set chunk_count = 99 where org_id = ${orgA}`.execute(trx),
    );
    expect(Number(updated.numAffectedRows)).toBe(0);
    await expect(
      asB((trx) =>
        sql`
        insert into indexer.indexed_sources (org_id, source_table, source_id, event_id, occurred_at, text_sha256, chunk_count, embedder)
        values (${orgA}, 'research_artifact', 'forged', ${randomUUID()}, now(), ${sha256('x')}, 1, 'e')`.execute(trx),
      ),
    ).rejects.toThrow(/row-level security/);
    // Without a tenant the app role sees nothing at all.
    expect((await sql`select * from indexer.indexed_sources`.execute(database.app)).rows).toEqual([]);
    expect(await dumpIndexedSources(database.admin, [orgA])).toEqual([expect.objectContaining({ chunk_count: 1 })]);
  });
});
