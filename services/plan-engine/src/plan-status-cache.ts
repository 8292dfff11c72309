import { planKey, type PlanChangeListener } from './plan-changes.js';

/** Plans kept while they do not change; see createPlanStatusCache. */
export interface PlanStatusCache<T extends object> {
  /** The plan's data from the cache when it is provably current, else from `load` (and cached). */
  read(orgId: string, planId: string, load: () => Promise<T>): Promise<T>;
  /** How many plans are held. */
  size(): number;
  /** Stops observing changes and drops every entry. */
  close(): void;
}

/**
 * Plans as last read from the database, kept while they do not change, so a get_plan_status of
 * an unchanged plan costs one shared round trip instead of a transaction of five (BEGIN, tenant,
 * plan, steps, COMMIT). What is cached is the stored data; the answer (stall flag, progress) is
 * still computed per call, at the time of the call.
 *
 * Correctness rests on the change listener: every write to a plan or its steps NOTIFYs at commit
 * (table triggers, any replica). A hit first passes a barrier on the LISTEN connection, so every
 * change committed before the call has already evicted its entry; a miss reads the database and
 * keeps the result only if no change at all arrived meanwhile (the read may predate it). When the
 * listener is down, nothing is cached and every read goes to the database. Keys carry the org:
 * an entry read under one org's row-level security only ever answers that org.
 */
export function createPlanStatusCache<T extends object>(
  changes: Pick<PlanChangeListener, 'observe' | 'barrier' | 'isListening'>,
  maxEntries = 10_000,
): PlanStatusCache<T> {
  const entries = new Map<string, T>();
  let changesSeen = 0;
  const stopObserving = changes.observe((key) => {
    changesSeen++;
    if (key === undefined) entries.clear();
    else entries.delete(key);
  });

  return {
    async read(orgId: string, planId: string, load: () => Promise<T>): Promise<T> {
      const key = planKey(orgId, planId);
      if (!changes.isListening()) return load();
      if (entries.has(key) && (await changes.barrier())) {
        const current = entries.get(key);
        if (current !== undefined) {
          // Most recently used last: the first entry is the one to evict.
          entries.delete(key);
          entries.set(key, current);
          return current;
        }
      }
      const seen = changesSeen;
      const value = await load();
      if (seen === changesSeen && changes.isListening()) {
        entries.set(key, value);
        if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
      }
      return value;
    },
    size: () => entries.size,
    close: () => {
      stopObserving();
      entries.clear();
    },
  };
}
