import { setTimeout as sleep } from 'node:timers/promises';
import type { McpCaller } from './mcp.js';
import type { BenchSystem } from './system.js';

// The content loads' waits: until one artifact is searchable, until the indexer has caught up.

/** How long one artifact may take to become searchable, and a whole load to be indexed, before the run fails. */
const VISIBLE_WITHIN_MS = 120_000;
const INDEXED_WITHIN_MS = 20 * 60_000;

const elapsed = (since: number) => performance.now() - since;

/** Polls search_sources (every ~5 ms) until `id` is among the results for `query`; returns when it is. */
export async function untilFound(
  caller: McpCaller,
  query: string,
  id: string,
  withinMs = VISIBLE_WITHIN_MS,
): Promise<void> {
  const started = performance.now();
  for (;;) {
    const found = await caller.call('search_sources', { query, limit: 10 });
    if ((found.results as { id: string }[]).some((r) => r.id === id)) return;
    if (elapsed(started) > withinMs)
      throw new Error(`artifact ${id} not searchable (query "${query}") after ${withinMs / 1000} s`);
    await sleep(5);
  }
}

/** Until the indexer has nothing pending (everything stored so far is in both indexes). */
export async function untilIndexed(system: BenchSystem): Promise<void> {
  const started = performance.now();
  for (;;) {
    const lag = await system.services.indexer.lag();
    if (lag.pending === 0) return;
    if (elapsed(started) > INDEXED_WITHIN_MS)
      throw new Error(`indexer still has ${lag.pending} events pending after ${INDEXED_WITHIN_MS / 60_000} min`);
    await sleep(20);
  }
}
