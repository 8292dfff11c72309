import type { StoreRequest } from './import-items.js';

// How `quarry import` groups items into store_research_batch calls: at most 100 items (what the
// tool takes) and a bounded number of bytes, so that a call stays well under the gateway's body
// limit (4 MiB by default) whatever the documents' sizes. An item too large for any call is
// reported, never sent: the gateway would refuse the whole call without saying which item.

export interface BatchLimits {
  /** Items per call (store_research_batch takes 1–100). */
  maxItems: number;
  /** Bytes of the items' JSON per call; an item larger than this still goes, alone. */
  maxBytes: number;
  /** The largest item that can be sent at all (alone in its call). */
  maxItemBytes: number;
}

const MiB = 1024 * 1024;

/**
 * 100 items or 1 MiB per call: a quarter of the gateway's default body limit, and a call whose
 * transaction stays well inside the gateway's 10 s deadline on a loaded machine (a timed-out call
 * leaves its items' fate unknown). Typical documents (a few KB) fill the count first. A single
 * item of up to 4 MiB less 64 KiB (room for the JSON-RPC envelope) goes alone.
 */
export const DEFAULT_BATCH_LIMITS: Readonly<BatchLimits> = Object.freeze({
  maxItems: 100,
  maxBytes: 1 * MiB,
  maxItemBytes: 4 * MiB - 64 * 1024,
});

/** What an item adds to a call's body: its JSON, as UTF-8. */
export function requestBytes(request: StoreRequest): number {
  return Buffer.byteLength(JSON.stringify(request));
}

export interface Batcher<T> {
  /** Adds an item of `bytes` bytes; returns the batches that are now complete, to be sent. */
  add(item: T, bytes: number): T[][];
  /** The batch being filled, if any (and starts an empty one). */
  flush(): T[][];
}

/** Groups items in arrival order into batches within `limits`. */
export function createBatcher<T>(limits: BatchLimits): Batcher<T> {
  let items: T[] = [];
  let bytes = 0;
  const take = (): T[][] => {
    if (!items.length) return [];
    const batch = items;
    items = [];
    bytes = 0;
    return [batch];
  };
  return {
    add(item, size) {
      // The item does not fit beside what is there: that batch is complete without it.
      const complete = bytes + size > limits.maxBytes ? take() : [];
      items.push(item);
      bytes += size;
      return items.length >= limits.maxItems || bytes >= limits.maxBytes ? [...complete, ...take()] : complete;
    },
    flush: take,
  };
}
