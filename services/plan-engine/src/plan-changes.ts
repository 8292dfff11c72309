import { createNotificationListener } from '@quarry/db';
import type { Logger } from 'pino';

const CHANNEL = 'quarry_plan_changed';

/** The key of a plan in notifications: `<org>:<plan>`, lowercase as PostgreSQL prints uuids. */
export function planKey(orgId: string, planId: string): string {
  return `${orgId.toLowerCase()}:${planId.toLowerCase()}`;
}

/** A plan's change, as long-polls and the status cache hear it. */
export interface PlanWatch {
  /** True when the plan changed, false when the wait ended or was aborted. */
  changed: Promise<boolean>;
  /** Always call it afterwards. */
  cancel(): void;
}

/** The process's one LISTEN connection for plan changes; see createPlanChangeListener. */
export interface PlanChangeListener {
  start(): Promise<void>;
  isListening(): boolean;
  /** Observe every change: a plan's key, or undefined when anything may have changed (reconnect); returns the unsubscribe function. */
  observe(observer: (key: string | undefined) => void): () => void;
  /** Resolves true once every change committed before this call has been delivered, false when not listening. */
  barrier(): Promise<boolean>;
  /**
   * Register interest in a plan BEFORE reading it, then await `changed`: it resolves true when
   * the plan changes, false when `ms` pass or `signal` aborts.
   */
  watch(orgId: string, planId: string, ms: number, signal?: AbortSignal): PlanWatch;
  close(): Promise<void>;
}

/**
 * One LISTEN connection per process for `quarry_plan_changed` (payload `<org>:<plan>`, sent by
 * table triggers at commit, from any replica). Long-polls wait on it in memory, so a waiting
 * get_plan_status holds no database connection; the status cache (plan-status-cache.ts) drops
 * what it holds on it.
 */
export function createPlanChangeListener(options: { connectionString: string; logger: Logger }): PlanChangeListener {
  const waiters = new Map<string, Set<() => void>>();
  /** Called with each changed plan's key, or undefined when anything may have changed (reconnect). */
  const observers = new Set<(key: string | undefined) => void>();

  function wakeAll() {
    for (const set of waiters.values()) for (const wake of set) wake();
    for (const observe of observers) observe(undefined);
  }

  const listener = createNotificationListener({
    connectionString: options.connectionString,
    applicationName: 'quarry-plan-engine-listen',
    channels: [CHANNEL],
    logger: options.logger,
    onNotification: (_channel, key) => {
      if (!key) return;
      for (const observe of observers) observe(key);
      for (const wake of waiters.get(key) ?? []) wake();
    },
    // Deaf from here: every waiter re-reads now rather than sleep through a change it cannot hear.
    onLost: wakeAll,
    // Changes made while deaf were never heard: a long-poll that began during the outage re-reads
    // now, and nothing cached before it is trusted.
    onConnected: wakeAll,
  });

  return {
    start: () => listener.start(),
    isListening: () => listener.isListening(),

    /** Observe every change (see `observers`); returns the unsubscribe function. */
    observe(observer: (key: string | undefined) => void): () => void {
      observers.add(observer);
      return () => observers.delete(observer);
    },

    /** Resolves true once every change committed before this call has been delivered, false when not listening. */
    barrier: () => listener.barrier(),

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
      wakeAll();
      await listener.close();
    },
  };
}
