import { isUuid, withTenant } from '@quarry/db';
import { sql, type Kysely } from 'kysely';
import type { VerificationClaim, VerificationPassage } from '../citations/verification.js';
import type { SubmittedVerdict } from '../citations/verdicts.js';

/** What a verify_citations handle refers to (extraction.citation_verifications). */
export interface PendingVerification {
  id: string;
  orgId: string;
  /** Digest of the user and token that asked (core/handle.ts principalDigest). */
  principal: string;
  planId?: string;
  outputId?: string;
  claims: VerificationClaim[];
  passages: VerificationPassage[];
  createdAt: Date;
  expiresAt: Date;
}

/** A verification whose verdicts were accepted. */
export interface SubmittedVerification {
  verdicts: SubmittedVerdict[];
  reportArtifactId: string;
  supportRatio: number;
}

interface Row {
  plan_id: string | null;
  output_id: string | null;
  claims: VerificationClaim[];
  passages: VerificationPassage[];
  created_at: Date;
  expires_at: Date;
  verdicts: SubmittedVerdict[] | null;
  report_artifact_id: string | null;
  support_ratio: number | null;
}

/** extraction.citation_verifications: every statement runs for one org (withTenant). */
export function createCitationVerifications(db: Kysely<unknown>) {
  return {
    /** Keeps what a new handle refers to, durably, before the handle is handed out. */
    async add(v: PendingVerification): Promise<void> {
      await withTenant(db, v, async (trx) => {
        await sql`
          insert into extraction.citation_verifications
            (id, org_id, principal, plan_id, output_id, claims, passages, created_at, expires_at)
          values (${v.id}, ${v.orgId}, ${v.principal}, ${v.planId ?? null}, ${v.outputId ?? null},
            ${JSON.stringify(v.claims)}::jsonb, ${JSON.stringify(v.passages)}::jsonb, ${v.createdAt}, ${v.expiresAt})`.execute(
          trx,
        );
      });
    },

    /**
     * The verification `id` of this org and principal: unexpired, or submitted (a submitted one
     * answers a repeat of its verdicts after expiry too). Undefined for another org's (invisible
     * under row-level security), another principal's, an expired and a missing one alike.
     */
    async find(
      who: { orgId: string; principal: string },
      id: string,
      now: Date,
    ): Promise<
      (Omit<PendingVerification, 'id' | 'orgId' | 'principal'> & { submitted?: SubmittedVerification }) | undefined
    > {
      if (!isUuid(id)) return undefined;
      return withTenant(db, who, async (trx) => {
        const { rows } = await sql<Row>`
          select plan_id, output_id, claims, passages, created_at, expires_at, verdicts, report_artifact_id, support_ratio
          from extraction.citation_verifications
          where id = ${id} and principal = ${who.principal} and (expires_at > ${now} or submitted_at is not null)`.execute(
          trx,
        );
        const row = rows[0];
        if (!row) return undefined;
        return {
          ...(row.plan_id ? { planId: row.plan_id } : {}),
          ...(row.output_id ? { outputId: row.output_id } : {}),
          claims: row.claims,
          passages: row.passages,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
          ...(row.verdicts && row.report_artifact_id
            ? {
                submitted: {
                  verdicts: row.verdicts,
                  reportArtifactId: row.report_artifact_id,
                  supportRatio: row.support_ratio ?? 0,
                },
              }
            : {}),
        };
      });
    },

    /**
     * Records the accepted verdicts once: false when the row was submitted meanwhile (a
     * concurrent submission won; the caller reads it back).
     */
    async settle(who: { orgId: string }, id: string, submitted: SubmittedVerification, now: Date): Promise<boolean> {
      return withTenant(db, who, async (trx) => {
        const result = await sql`
          update extraction.citation_verifications
          set verdicts = ${JSON.stringify(submitted.verdicts)}::jsonb, report_artifact_id = ${submitted.reportArtifactId},
            support_ratio = ${submitted.supportRatio}, submitted_at = ${now}
          where id = ${id} and submitted_at is null`.execute(trx);
        return Number(result.numAffectedRows ?? 0) === 1;
      });
    },
  };
}

export type CitationVerifications = ReturnType<typeof createCitationVerifications>;
