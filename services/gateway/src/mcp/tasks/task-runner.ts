import { randomUUID } from 'node:crypto';
import { createNotificationListener, type NotificationListener } from '@quarry/db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { createTaskStore, TASK_CANCEL_CHANNEL, type TaskOutcome, type TaskOwner } from './task-store.js';
import { type DetailedTask, taskView } from './task-view.js';

export interface TaskRunnerOptions {
  db: Kysely<unknown>;
  /** The LISTEN connection's database URL (cancellations asked on other replicas arrive by NOTIFY). */
  listenConnectionString: string;
  logger: Logger;
  /** How long a task is kept from its creation (its ttlMs); past it, it is a missing task. */
  ttlMs: number;
  /**
   * How long a task may run: the tool's own deadline plus a margin. A task still 'working' past
   * it was abandoned by a replica that stopped, and reads as failed.
   */
  runDeadlineMs: number;
  /** The polling interval suggested to clients (default 2 s). */
  pollIntervalMs?: number;
}

/** The work of one task: it stops when `signal` aborts, and says how the call ended. */
export type TaskWork = (signal: AbortSignal) => Promise<TaskOutcome>;

export interface TaskLaunch {
  owner: TaskOwner & { userId: string };
  tool: string;
  work: TaskWork;
}

/** Why a running task's signal was aborted. */
type StopReason = 'cancelled' | 'shutdown';

const CANCELLED_MESSAGE = 'Cancelled at the client’s request.';
const SHUTDOWN_MESSAGE = 'The gateway replica running this task shut down before it finished; call the tool again.';

/**
 * Runs MCP tasks (the io.modelcontextprotocol/tasks extension) on this replica and answers for
 * every task of the deployment: the state is a row any replica reads (gateway.mcp_tasks), the work
 * runs where the call arrived, and a cancellation asked anywhere reaches it by NOTIFY (or, when
 * that connection was down, by re-reading the flags once it is back).
 */
export function createTaskRunner(options: TaskRunnerOptions) {
  const store = createTaskStore(options.db);
  const pollIntervalMs = options.pollIntervalMs ?? 2_000;
  const running = new Map<string, { orgId: string; controller: AbortController }>();
  const settling = new Set<Promise<void>>();

  const stop = (id: string, reason: StopReason) => running.get(id)?.controller.abort(reason);
  const recheckCancellations = () => {
    for (const [id, { orgId }] of running)
      store.cancelRequested(orgId, id).then(
        (asked) => asked && stop(id, 'cancelled'),
        (error: unknown) => options.logger.warn({ err: error, taskId: id }, 'could not re-read a task’s cancel flag'),
      );
  };
  const listener: NotificationListener = createNotificationListener({
    connectionString: options.listenConnectionString,
    applicationName: 'quarry-gateway-task-listen',
    channels: [TASK_CANCEL_CHANNEL],
    logger: options.logger,
    onNotification: (_channel, id) => stop(id, 'cancelled'),
    onConnected: recheckCancellations,
  });

  async function run(id: string, orgId: string, work: TaskWork, controller: AbortController) {
    let outcome: TaskOutcome;
    try {
      outcome = await work(controller.signal);
    } catch (error) {
      options.logger.error({ err: error, taskId: id }, 'task failed');
      outcome = {
        status: 'failed',
        error: { code: -32603, message: 'Internal error.' },
        statusMessage: 'The call failed inside Quarry.',
      };
    }
    const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : undefined;
    if (reason === 'cancelled') outcome = { status: 'cancelled', statusMessage: CANCELLED_MESSAGE };
    if (reason === 'shutdown')
      outcome = {
        status: 'failed',
        error: { code: -32603, message: SHUTDOWN_MESSAGE },
        statusMessage: SHUTDOWN_MESSAGE,
      };
    try {
      await store.finish(orgId, id, outcome, new Date());
    } catch (error) {
      // Left 'working', it reads as failed once its run deadline passes.
      options.logger.error({ err: error, taskId: id }, 'could not record how a task ended');
    } finally {
      running.delete(id);
    }
  }

  return {
    start: () => listener.start(),

    /** Records a working task (durably: a tasks/get anywhere finds it), starts its work, and returns the task. */
    async launch({ owner, tool, work }: TaskLaunch): Promise<DetailedTask> {
      const now = new Date();
      const id = randomUUID();
      const record = await store.create({
        id,
        owner,
        tool,
        statusMessage: `${tool} is running.`,
        now,
        runDeadline: new Date(now.getTime() + options.runDeadlineMs),
        expiresAt: new Date(now.getTime() + options.ttlMs),
      });
      const controller = new AbortController();
      running.set(id, { orgId: owner.orgId, controller });
      const settled = run(id, owner.orgId, work, controller);
      settling.add(settled);
      void settled.finally(() => settling.delete(settled));
      return taskView(record, now, pollIntervalMs)!;
    },

    /** The caller's task as tasks/get shows it; undefined when it has none by that id (or it expired). */
    async get(owner: TaskOwner, id: string): Promise<DetailedTask | undefined> {
      const record = await store.get(owner, id);
      return record && taskView(record, new Date(), pollIntervalMs);
    },

    /** Asks the caller's task to stop; false when it has none by that id (or it expired). */
    async cancel(owner: TaskOwner, id: string): Promise<boolean> {
      const record = await store.requestCancel(owner, id);
      if (!record || !taskView(record, new Date(), pollIntervalMs)) return false;
      // Here already: no need to wait for our own NOTIFY.
      stop(id, 'cancelled');
      return true;
    },

    /** Stops listening; tasks still running here are stopped and recorded as failed. */
    async close(): Promise<void> {
      for (const id of running.keys()) stop(id, 'shutdown');
      await Promise.allSettled([...settling]);
      await listener.close();
    },
  };
}

export type TaskRunner = ReturnType<typeof createTaskRunner>;
