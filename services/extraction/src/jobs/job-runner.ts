import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { createJobStore, type JobOutcome, type JobOwner, type JobRecord } from '../store/jobs.js';

export interface JobRunnerOptions {
  db: Kysely<unknown>;
  logger: Logger;
  /** How long a job and its outcome are kept (EXTRACTION_JOB_TTL). */
  ttlMs: number;
  /**
   * How long a running job stays this instance's without a renewal (EXTRACTION_JOB_LEASE): it is
   * renewed three times per lease while the job runs, and swept for abandoned jobs once per lease.
   */
  leaseMs: number;
  /** How often a job is started before it is given up (the instance running it kept stopping). Default 3. */
  maxAttempts?: number;
  /** How often a wait re-reads a job that runs elsewhere. Default 500 ms. */
  pollIntervalMs?: number;
  /** Runs a job to its end; `signal` aborts when this instance stops or loses the job. */
  work: (job: JobRecord, signal: AbortSignal) => Promise<JobOutcome>;
}

/** Why a running job's signal aborted: either way its row is left for whoever holds it next. */
type StopReason = 'shutdown' | 'lost';

export interface LaunchedJob {
  record: JobRecord;
  /** Settles with the outcome once written (undefined when this instance stopped or lost the job first). */
  done: Promise<JobOutcome | undefined>;
}

/**
 * Durable extraction jobs (ADR 0044): a job is a row (extraction.jobs) written before its id is
 * handed out, run by the instance that created it under a lease it renews, and read by id on
 * any instance. When an instance stops, its jobs keep their rows: once the lease lapses, the
 * periodic sweep of any instance (the same one after a restart included) leases and runs them
 * again; the result is stored under the job's idempotency key, so a job that stored before it
 * stopped does not store twice.
 */
export function createJobRunner(options: JobRunnerOptions) {
  const store = createJobStore(options.db);
  const instance = randomUUID();
  const { leaseMs, logger } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const running = new Map<
    string,
    { orgId: string; controller: AbortController; done: Promise<JobOutcome | undefined> }
  >();
  let closed = false;
  let sweeping: Promise<void> | undefined;

  function run(record: JobRecord): Promise<JobOutcome | undefined> {
    const controller = new AbortController();
    const job = { id: record.id, orgId: record.owner.orgId };
    const done = (async () => {
      let outcome: JobOutcome;
      try {
        outcome = await options.work(record, controller.signal);
      } catch (error) {
        logger.error({ err: error, jobId: record.id }, 'extraction job failed');
        outcome = {
          status: 'failed',
          error: { code: 'INTERNAL', status: 13, message: 'The extraction failed inside Quarry.' },
        };
      }
      // Stopped or taken over: the row stays running for whoever holds it next.
      if (controller.signal.aborted) return undefined;
      try {
        return (await store.finish(instance, job, outcome)) ? outcome : undefined;
      } catch (error) {
        // Left running, its lease lapses and a sweep runs it again (its result is stored once).
        logger.error({ err: error, jobId: record.id }, 'could not record how an extraction job ended');
        return undefined;
      }
    })();
    running.set(record.id, { orgId: job.orgId, controller, done });
    void done.finally(() => running.delete(record.id));
    return done;
  }

  const stop = (id: string, reason: StopReason) => running.get(id)?.controller.abort(reason);

  async function renew() {
    const held = [...running].map(([id, { orgId }]) => ({ id, orgId }));
    if (held.length === 0) return;
    try {
      for (const id of await store.renew(instance, held, leaseMs)) stop(id, 'lost');
    } catch (error) {
      logger.warn({ err: error }, 'could not renew the leases of running extraction jobs');
    }
  }

  async function sweep() {
    try {
      const taken = await store.maintain({
        leaseOwner: instance,
        leaseMs,
        maxAttempts: options.maxAttempts ?? 3,
        maxJobs: 20,
      });
      for (const job of taken) {
        const record = await store.get(job.orgId, job.id, new Date());
        if (!record || closed) continue;
        logger.info({ jobId: record.id, attempt: record.attempts }, 'resuming an extraction job its instance left');
        void run(record);
      }
    } catch (error) {
      logger.warn({ err: error }, 'extraction upkeep failed; the next sweep tries again');
    }
  }
  const trySweep = () => {
    if (!closed) sweeping ??= sweep().finally(() => (sweeping = undefined));
    return sweeping;
  };

  const renewTimer = setInterval(() => void renew(), Math.max(1, Math.floor(leaseMs / 3)));
  const sweepTimer = setInterval(() => void trySweep(), leaseMs);
  renewTimer.unref();
  sweepTimer.unref();

  return {
    /** Sweeps once at once (jobs a stopped instance left are resumed without waiting a lease). */
    start: () => trySweep(),

    /** Records a running job for `owner`, starts it here, and returns it with its outcome to come. */
    async launch(owner: JobOwner, request: Record<string, unknown>, provider: string): Promise<LaunchedJob> {
      const record = await store.create({
        id: randomUUID(),
        owner,
        request,
        provider,
        leaseOwner: instance,
        now: new Date(),
        leaseMs,
        ttlMs: options.ttlMs,
      });
      return { record, done: run(record) };
    },

    /**
     * The org's job, once it has ended or `waitMs` has passed (0: at once); undefined when the org
     * has no such job. A job running here is awaited; one running elsewhere is re-read.
     */
    async read(orgId: string, id: string, waitMs: number, signal?: AbortSignal): Promise<JobRecord | undefined> {
      const until = Date.now() + waitMs;
      for (;;) {
        const record = await store.get(orgId, id, new Date());
        const left = until - Date.now();
        if (!record || record.status !== 'running' || left <= 0 || signal?.aborted) return record;
        const here = running.get(id)?.done;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, here ? left : Math.min(left, pollIntervalMs));
          function done() {
            clearTimeout(timer);
            signal?.removeEventListener('abort', done);
            resolve();
          }
          signal?.addEventListener('abort', done, { once: true });
          void here?.then(done, done);
        });
      }
    },

    /** Stops sweeping; jobs running here stop too, their rows left for a sweep to resume. */
    async close(): Promise<void> {
      closed = true;
      clearInterval(renewTimer);
      clearInterval(sweepTimer);
      const held = [...running].map(([id, { orgId }]) => ({ id, orgId }));
      const settling = [...running.values()].map((job) => job.done);
      for (const { id } of held) stop(id, 'shutdown');
      await Promise.allSettled([...settling, sweeping]);
      // Lapsed at once: the next instance's first sweep resumes them rather than a lease later.
      await store.release(instance, held).catch((error: unknown) => {
        logger.warn({ err: error }, 'could not release the leases of stopped extraction jobs');
      });
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
