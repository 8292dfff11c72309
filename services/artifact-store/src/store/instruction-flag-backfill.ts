import { sql, withTenant, type AnyDb } from '@quarry/db';
import { artifactText } from '../core/indexed-text.js';
import { documentScanInput, flagsColumn } from '../core/instruction-flags.js';

/** What a backfill did for one org. */
export interface FlagBackfill {
  scanned: number;
  /** Of those, rows with at least one flag. */
  flagged: number;
}

interface UnscannedRow {
  id: string;
  title: string;
  content: unknown;
  content_text: string | null;
  format: string | null;
  original: Buffer | null;
}

/**
 * `quarry flags backfill`: instruction flags for an org's artifacts stored before the scanner
 * (instruction_flags null), in pages read by id, each scanned and written in one short
 * transaction as that tenant; rows scanned meanwhile by a write are left as they are. It reads
 * what the write path would have scanned: the artifact's readable text and title, and an HTML
 * document's original page. Like reindex, every statement names the org as well as running as
 * its tenant (the admin may be a superuser); `db` may be any role the tenant policies admit.
 */
export async function backfillInstructionFlags(db: AnyDb, orgId: string, pageSize = 200): Promise<FlagBackfill> {
  const done: FlagBackfill = { scanned: 0, flagged: 0 };
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const page = await withTenant(db, { orgId }, async (trx) => {
      const { rows } = await sql<UnscannedRow>`
        select a.id::text as id, a.title, a.content, a.content_text, d.format,
               case when d.format = 'html' then d.original end as original
          from artifact.research_artifacts a
          left join artifact.documents d on d.artifact_id = a.id and d.org_id = a.org_id
         where a.org_id = ${orgId} and a.instruction_flags is null and a.id > ${after}::uuid
         order by a.id
         limit ${pageSize}`.execute(trx);
      if (rows.length === 0) return rows;
      const scanned = rows.map((row) => {
        const text = artifactText(row.content_text, row.content);
        const flags = row.original
          ? flagsColumn(documentScanInput(text, row.title, row.format ?? '', row.original))
          : flagsColumn({ text, title: row.title });
        if (flags !== '[]') done.flagged++;
        return { id: row.id, flags: JSON.parse(flags) as unknown };
      });
      await sql`
        update artifact.research_artifacts a
           set instruction_flags = v.flags
          from jsonb_to_recordset(${JSON.stringify(scanned)}::jsonb) as v(id uuid, flags jsonb)
         where a.id = v.id and a.org_id = ${orgId} and a.instruction_flags is null`.execute(trx);
      return rows;
    });
    done.scanned += page.length;
    if (page.length < pageSize) return done;
    after = page[page.length - 1]!.id;
  }
}

/**
 * Orgs that may hold rows not scanned yet: those the admin sees such rows of, and where the
 * identity schema shares the database, every org (an admin under FORCE row level security sees
 * no rows, so the orgs table is then the list).
 */
export async function orgsToBackfill(db: AnyDb): Promise<string[]> {
  const { rows: identity } = await sql<{ present: boolean }>`
    select to_regclass('identity.organizations') is not null as present`.execute(db);
  const { rows } = identity[0]?.present
    ? await sql<{ org_id: string }>`
        select id::text as org_id from identity.organizations
        union select distinct org_id::text from artifact.research_artifacts where instruction_flags is null
        order by 1`.execute(db)
    : await sql<{ org_id: string }>`
        select distinct org_id::text as org_id from artifact.research_artifacts where instruction_flags is null
        order by 1`.execute(db);
  return rows.map((r) => r.org_id);
}
