import { isUuid, withTenant } from '@quarry/db';
import { sql, type Kysely } from 'kysely';

/** What a submission handle refers to: the schema and the source it was issued for. */
export interface PendingSubmission {
  id: string;
  orgId: string;
  /** Digest of the user and token that asked (core/handle.ts principalDigest). */
  principal: string;
  extractionSchema: Record<string, unknown>;
  schemaHash: string;
  /** The source text, or (when it came from a stored artifact) the artifact's id: its text is reloaded. */
  source: { text: string } | { artifactId: string };
  createdAt: Date;
  expiresAt: Date;
}

interface Row {
  extraction_schema: Record<string, unknown>;
  schema_hash: string;
  source_text: string | null;
  source_artifact_id: string | null;
}

/** extraction.pending_submissions: every statement runs for one org (withTenant). */
export function createPendingSubmissions(db: Kysely<unknown>) {
  return {
    /** Keeps what a new handle refers to, durably, before the handle is handed out. */
    async add(pending: PendingSubmission): Promise<void> {
      await withTenant(db, pending, async (trx) => {
        await sql`
          insert into extraction.pending_submissions
            (id, org_id, principal, extraction_schema, schema_hash, source_text, source_artifact_id, created_at, expires_at)
          values (${pending.id}, ${pending.orgId}, ${pending.principal}, ${JSON.stringify(pending.extractionSchema)}::jsonb,
            ${pending.schemaHash}, ${'text' in pending.source ? pending.source.text : null},
            ${'artifactId' in pending.source ? pending.source.artifactId : null}, ${pending.createdAt}, ${pending.expiresAt})`.execute(
          trx,
        );
      });
    },

    /**
     * The submission `id` of this org and principal while it has not expired at `now`; undefined
     * otherwise — another org's (invisible under row-level security), another principal's, an
     * expired one and a missing one alike.
     */
    async find(
      who: { orgId: string; principal: string },
      id: string,
      now: Date,
    ): Promise<Pick<PendingSubmission, 'extractionSchema' | 'schemaHash' | 'source'> | undefined> {
      if (!isUuid(id)) return undefined;
      return withTenant(db, who, async (trx) => {
        const { rows } = await sql<Row>`
          select extraction_schema, schema_hash, source_text, source_artifact_id from extraction.pending_submissions
          where id = ${id} and principal = ${who.principal} and expires_at > ${now}`.execute(trx);
        const row = rows[0];
        if (!row) return undefined;
        return {
          extractionSchema: row.extraction_schema,
          schemaHash: row.schema_hash,
          source: row.source_artifact_id !== null ? { artifactId: row.source_artifact_id } : { text: row.source_text! },
        };
      });
    },
  };
}

export type PendingSubmissions = ReturnType<typeof createPendingSubmissions>;
