import pg from 'pg';
import { createListenBarrier } from '@quarry/db';
import type { Logger } from 'pino';

const CHANNEL = 'quarry_plan_changed';

/** The key of a plan in notifications: `<org>:<plan>`, lowercase as PostgreSQL prints uuids. */
export function planKey(orgId: string, planId: string): string {
  return `${orgId.toLowerCase()}:${planId.toLowerCase()}`;
}

/**
 * One LISTEN connection per process for `quarry_plan_changed` (payload `<org>:<plan>`, sent by
 * table triggers at commit, from any replica). Long-polls wait on it in memory, so a waiting
 * get_plan_status holds no database connection; the status cache (plan-status-cache.ts) drops
 * what it holds on it.
 */
export function createPlanChangeListener(options: { connectionString: string; logger: Logger }) {
  const waiters = new Map<string, Set<() => void>>();
  /** Called with each changed plan's key, or undefined when anything may have changed (reconnect). */
  const observers = new Set<(key: string | undefined) => void>();
  let client: pg.Client | undefined;
  let closed = false;
  let listening = false;
  let retry: NodeJS.Timeout | undefined;
  let delay = 250;

  function wakeAll() {
    for (const set of waiters.values()) for (const wake of set) wake();
    for (const observe of observers) observe(undefined);
  }

  async function connect(): Promise<void> {
    const next = new pg.Client({
      connectionString: options.connectionString,
      application_name: 'quarry-plan-engine-listen',
    });
    const lost = (error?: Error) => {
      if (client !== next) return;
      client = undefined;
      listening = false;
      next.removeAllListeners();
      next.on('error', () => undefined);
      void next.end().catch(() => undefined);
      // Anything may have changed while we were deaf: let every waiter re-read now.
      wakeAll();
      if (closed) return;
      options.logger.warn({ err: error }, 'plan change LISTEN connection lost; reconnecting');
      retry = setTimeout(() => void connect().catch(() => undefined), delay);
      delay = Math.min(delay * 2, 10_000);
    };
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      for (const observe of observers) observe(message.payload);
      for (const wake of waiters.get(message.payload) ?? []) wake();
    });
    client = next;
    try {
      await next.connect();
      await next.query(`listen ${CHANNEL}`);
      listening = true;
      delay = 250;
    } catch (error) {
      lost(error as Error);
      throw error;
    }
  }

  return {
    start: () => connect(),
    isListening: () => listening,

    /** Observe every change (see `observers`); returns the unsubscribe function. */
    observe(observer: (key: string | undefined) => void): () => void {
      observers.add(observer);
      return () => observers.delete(observer);
    },

    /** Resolves true once every change committed before this call has been delivered, false when not listening. */
    barrier: createListenBarrier(() => (listening ? client : undefined)),

    /**
     * Register interest in a plan BEFORE reading it, then await `changed`: it resolves true when
     * the plan changes, false when `ms` pass or `signal` aborts. Always call `cancel` afterwards.
     */
    watch(orgId: string, planId: string, ms: number, signal?: AbortSignal) {
      const key = planKey(orgId, planId);
      let wake!: (changed: boolean) => void;
      const changed = new Promise<boolean>((resolve) => {
        wake = resolve;
      });
      const onChange = () => wake(true);
      const set = waiters.get(key) ?? new Set();
      set.add(onChange);
      waiters.set(key, set);
      const timer = setTimeout(() => wake(false), ms);
      const onAbort = () => wake(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      return {
        changed,
        cancel() {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          set.delete(onChange);
          if (set.size === 0) waiters.delete(key);
        },
      };
    },

    async close(): Promise<void> {
      closed = true;
      if (retry) clearTimeout(retry);
      wakeAll();
      const current = client;
      client = undefined;
      listening = false;
      if (current) {
        current.removeAllListeners();
        current.on('error', () => undefined);
        await current.end().catch(() => undefined);
      }
    },
  };
}

export type PlanChangeListener = ReturnType<typeof createPlanChangeListener>;
