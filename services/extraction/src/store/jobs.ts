import { isUuid, withTenant } from '@quarry/db';
import { sql, type Kysely } from 'kysely';

/** Who a job acts for: the caller of the extract_data that started it. */
export interface JobOwner {
  orgId: string;
  userId?: string;
  tokenId?: string;
  serviceName?: string;
  requestId: string;
}

/** How a job ended, as the caller of the call would have seen it. */
export type JobOutcome =
  { status: 'completed'; result: Record<string, unknown> } | { status: 'failed'; error: JobError };

/** A failure as a QuarryError carries it: stable code, gRPC status, message, details. */
export interface JobError {
  code: string;
  status: number;
  message: string;
  details?: Record<string, unknown>;
}

export interface JobRecord {
  id: string;
  owner: JobOwner;
  /** The ExtractDataRequest, proto3 JSON, without the gateway's fields. */
  request: Record<string, unknown>;
  provider: string;
  status: 'running' | 'completed' | 'failed';
  result: Record<string, unknown> | null;
  error: JobError | null;
  attempts: number;
  createdAt: Date;
}

export interface NewJob {
  id: string;
  owner: JobOwner;
  request: Record<string, unknown>;
  provider: string;
  /** The instance that runs it (holds its lease). */
  leaseOwner: string;
  now: Date;
  leaseMs: number;
  ttlMs: number;
}

interface Row {
  id: string;
  org_id: string;
  user_id: string | null;
  token_id: string | null;
  service_name: string | null;
  request_id: string;
  request: Record<string, unknown>;
  provider: string;
  status: JobRecord['status'];
  result: Record<string, unknown> | null;
  error: JobError | null;
  attempts: number;
  created_at: Date;
}

const recordOf = (row: Row): JobRecord => ({
  id: row.id,
  owner: {
    orgId: row.org_id,
    ...(row.user_id ? { userId: row.user_id } : {}),
    ...(row.token_id ? { tokenId: row.token_id } : {}),
    ...(row.service_name ? { serviceName: row.service_name } : {}),
    requestId: row.request_id,
  },
  request: row.request,
  provider: row.provider,
  status: row.status,
  result: row.result,
  error: row.error,
  attempts: row.attempts,
  createdAt: row.created_at,
});

const ms = (value: number) => sql`${value} * interval '1 millisecond'`;

/** extraction.jobs: every statement runs for one org (withTenant), except the cross-org upkeep. */
export function createJobStore(db: Kysely<unknown>) {
  return {
    /** Records a running job, leased to its instance, durably (a read on any instance finds it once this resolves). */
    async create(job: NewJob): Promise<JobRecord> {
      const { owner } = job;
      return withTenant(db, owner, async (trx) => {
        const { rows } = await sql<Row>`
          insert into extraction.jobs (id, org_id, user_id, token_id, service_name, request_id, request, provider,
            status, attempts, lease_owner, lease_expires_at, created_at, updated_at, expires_at)
          values (${job.id}, ${owner.orgId}, ${owner.userId ?? null}, ${owner.tokenId ?? null},
            ${owner.serviceName ?? null}, ${owner.requestId}, ${JSON.stringify(job.request)}::jsonb, ${job.provider},
            'running', 1, ${job.leaseOwner}, ${job.now}::timestamptz + ${ms(job.leaseMs)}, ${job.now}, ${job.now},
            ${job.now}::timestamptz + ${ms(job.ttlMs)})
          returning *`.execute(trx);
        return recordOf(rows[0]!);
      });
    },

    /** The org's job, or undefined: another org's (invisible under row-level security), an expired and a missing one alike. */
    async get(orgId: string, id: string, now: Date): Promise<JobRecord | undefined> {
      if (!isUuid(id)) return undefined;
      return withTenant(db, { orgId }, async (trx) => {
        const { rows } = await sql<Row>`
          select * from extraction.jobs where id = ${id} and expires_at > ${now}`.execute(trx);
        return rows[0] ? recordOf(rows[0]) : undefined;
      });
    },

    /** Extends the lease of jobs this instance still runs; returns the ids it holds no more (another took them). */
    async renew(leaseOwner: string, jobs: ReadonlyArray<{ id: string; orgId: string }>, leaseMs: number) {
      const lost: string[] = [];
      for (const job of jobs) {
        const kept = await withTenant(db, job, async (trx) => {
          const { rows } = await sql`
            update extraction.jobs set lease_expires_at = now() + ${ms(leaseMs)}
            where id = ${job.id} and status = 'running' and lease_owner = ${leaseOwner}
            returning id`.execute(trx);
          return rows.length > 0;
        });
        if (!kept) lost.push(job.id);
      }
      return lost;
    },

    /** Lets go of jobs this instance stops running (it shuts down): a sweep anywhere may take them at once. */
    async release(leaseOwner: string, jobs: ReadonlyArray<{ id: string; orgId: string }>): Promise<void> {
      for (const job of jobs) {
        await withTenant(db, job, async (trx) => {
          await sql`
            update extraction.jobs set lease_expires_at = now() - interval '1 millisecond'
            where id = ${job.id} and status = 'running' and lease_owner = ${leaseOwner}`.execute(trx);
        });
      }
    },

    /** Writes how a job ended, if this instance still holds it (false: another took it over). */
    async finish(leaseOwner: string, job: { id: string; orgId: string }, outcome: JobOutcome): Promise<boolean> {
      const result = outcome.status === 'completed' ? JSON.stringify(outcome.result) : null;
      const error = outcome.status === 'failed' ? JSON.stringify(outcome.error) : null;
      return withTenant(db, job, async (trx) => {
        const { rows } = await sql`
          update extraction.jobs
          set status = ${outcome.status}, result = ${result}::jsonb, error = ${error}::jsonb,
            lease_owner = null, lease_expires_at = null, updated_at = now()
          where id = ${job.id} and status = 'running' and lease_owner = ${leaseOwner}
          returning id`.execute(trx);
        return rows.length > 0;
      });
    },

    /**
     * The cross-org upkeep (extraction.maintain): forgets what expired, fails jobs interrupted too
     * often, and leases to `leaseOwner` the running jobs whose instance stopped; returns those.
     */
    async maintain(options: { leaseOwner: string; leaseMs: number; maxAttempts: number; maxJobs: number }) {
      const { rows } = await sql<{ job_id: string; job_org_id: string }>`
        select job_id, job_org_id from extraction.maintain(${options.leaseOwner}::uuid, ${ms(options.leaseMs)},
          ${options.maxAttempts}::integer, ${options.maxJobs}::integer)`.execute(db);
      return rows.map((row) => ({ id: row.job_id, orgId: row.job_org_id }));
    },
  };
}
