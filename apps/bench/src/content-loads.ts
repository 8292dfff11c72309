import { createMcpCaller, type McpCaller, type ToolOutput } from './mcp.js';
import type { PhaseContext } from './phase.js';
import { untilFound, untilIndexed } from './waits.js';

// The content loads: artifacts stored through MCP by concurrent callers, one per call or in
// batches, and a load timed until everything is indexed and searchable.

/** Concurrent MCP callers storing artifacts in the quality load (and by default). */
export const WRITERS = 8;
/** store_research_batch: artifacts per call, and concurrent callers. */
export const BATCH_ITEMS = 100;
export const BATCH_WRITERS = 4;

const elapsed = (since: number) => performance.now() - since;

export type Artifact = { title: string; text: string; content: object };

/** store_research calls from `writers` concurrent callers; returns the artifact ids in input order. */
export async function storeAll(
  caller: McpCaller,
  artifacts: readonly Artifact[],
  writers = WRITERS,
): Promise<string[]> {
  const ids: string[] = new Array(artifacts.length);
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < artifacts.length; i = next++) {
      const a = artifacts[i]!;
      ids[i] = (
        await caller.call('store_research', {
          artifactType: 'finding',
          title: a.title,
          content: a.content,
          contentText: a.text,
        })
      ).id as string;
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
  return ids;
}

/** One store_research_batch call of `items`: what the tool answers. */
export type BatchCall = (caller: McpCaller, items: readonly object[]) => Promise<ToolOutput>;

const callOnce: BatchCall = (caller, items) => caller.call('store_research_batch', { artifacts: items });

/**
 * store_research_batch calls of `batchItems` artifacts (`BATCH_ITEMS` unless given) from
 * `BATCH_WRITERS` concurrent callers, each call made by `send` (once unless given); ids in input order.
 */
export async function storeBatched(
  caller: McpCaller,
  artifacts: readonly Artifact[],
  { batchItems = BATCH_ITEMS, send = callOnce }: { batchItems?: number; send?: BatchCall } = {},
): Promise<string[]> {
  const ids: string[] = new Array(artifacts.length);
  let next = 0;
  const writer = async () => {
    for (let from = next; from < artifacts.length; from = next) {
      next += batchItems;
      const items = artifacts.slice(from, from + batchItems).map((a) => ({
        artifactType: 'finding',
        title: a.title,
        content: a.content,
        contentText: a.text,
      }));
      const { results, refused } = await send(caller, items);
      if (refused !== 0) throw new Error(`store_research_batch refused ${String(refused)} items`);
      (results as { id: string }[]).forEach((r, i) => (ids[from + i] = r.id));
    }
  };
  await Promise.all(Array.from({ length: BATCH_WRITERS }, writer));
  return ids;
}

/**
 * One ingest load into a fresh org: `store` writes every artifact; the clock stops when the
 * indexer has nothing pending and the last one stored is searchable. Returns the milliseconds.
 */
export async function timedLoad(
  { system, progress }: PhaseContext,
  name: string,
  artifacts: readonly (Artifact & { marker: string })[],
  sockets: number,
  store: (caller: McpCaller, artifacts: readonly Artifact[]) => Promise<string[]>,
): Promise<number> {
  const member = await system.createMember(name);
  const caller = createMcpCaller(system.quarryUrl, member.token, sockets);
  try {
    const started = performance.now();
    const ids = await store(caller, artifacts);
    const storedMs = elapsed(started);
    await untilIndexed(system);
    await untilFound(caller, artifacts.at(-1)!.marker, ids.at(-1)!);
    const quarryMs = elapsed(started);
    progress(
      `${name}: ${artifacts.length} stored in ${(storedMs / 1000).toFixed(1)} s, indexed and searchable after ${(quarryMs / 1000).toFixed(1)} s`,
    );
    return quarryMs;
  } finally {
    caller.close();
  }
}
