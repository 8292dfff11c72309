import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { createBatcher, requestBytes } from '../src/import-batches.js';
import type { StoreRequest } from '../src/import-items.js';
import type { StoreSender } from '../src/import-sender.js';
import { importLibrary } from '../src/import.js';

// How `quarry import` cuts a library into store_research_batch calls: by count and by bytes, in
// the order read, an item too large for any call reported and never sent (the server side is a
// stand-in here that records each call; import.test.ts runs the real system).

const dir = mkdtempSync(join(tmpdir(), 'quarry-import-batches-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('createBatcher', () => {
  it('closes a batch at the item count, and before an item that would pass the byte bound', () => {
    const batcher = createBatcher<string>({ maxItems: 3, maxBytes: 100, maxItemBytes: 1000 });
    expect(batcher.add('a', 10)).toEqual([]);
    expect(batcher.add('b', 10)).toEqual([]);
    expect(batcher.add('c', 10)).toEqual([['a', 'b', 'c']]);
    expect(batcher.add('d', 60)).toEqual([]);
    expect(batcher.add('e', 60)).toEqual([['d']]);
    // Larger than a batch's bound on its own: it goes alone, and what was there goes first.
    expect(batcher.add('f', 300)).toEqual([['e'], ['f']]);
    expect(batcher.add('g', 1)).toEqual([]);
    expect(batcher.flush()).toEqual([['g']]);
    expect(batcher.flush()).toEqual([]);
  });
});

describe('importLibrary in batches', () => {
  it('keeps each call within the byte bound and reports an item too large for any call', async () => {
    const file = join(dir, 'sized.jsonl');
    // Each item also carries its idempotency key (~100 bytes of JSON), counted in its size.
    const sizes = [300, 300, 300, 600, 10, 2500, 300, 300];
    writeFileSync(
      file,
      sizes.map((n, i) => JSON.stringify({ title: `Doc ${i + 1}`, content: 'w'.repeat(n) })).join('\n'),
    );
    const calls: StoreRequest[][] = [];
    const sender: StoreSender = {
      org: async () => 'acme',
      store: async (items) => {
        calls.push([...items]);
        return items.map((item) => ({ ok: true, id: `id-${item.title}` }));
      },
      upload: async () => ({ ok: false, error: 'this test sends no documents' }),
      close: async () => undefined,
    };
    const errors: string[] = [];
    const limits = { maxItems: 100, maxBytes: 1000, maxItemBytes: 2000 };
    const summary = await importLibrary({
      source: file,
      sender,
      defaults: { artifactType: 'finding', tags: [] },
      stateFile: join(dir, 'sized.state.jsonl'),
      batchLimits: limits,
      progress: { kind: 'lines', everyMs: 0 },
      out: () => undefined,
      err: (l) => errors.push(l),
    });

    expect(summary).toMatchObject({ total: 8, stored: 7, failed: 1 });
    expect(errors).toEqual([
      expect.stringMatching(/✗ line 6: too large to send \(\d+ bytes; one call carries at most 2000\)/),
    ]);
    expect(calls.map((c) => c.map((i) => i.title))).toEqual([
      ['Doc 1', 'Doc 2'],
      ['Doc 3'],
      ['Doc 4', 'Doc 5'],
      ['Doc 7', 'Doc 8'],
    ]);
    for (const call of calls) {
      const bytes = call.reduce((sum, item) => sum + requestBytes(item), 0);
      expect(call.length === 1 || bytes <= limits.maxBytes).toBe(true);
    }
  });

  it('sends at most maxItems per call and records every stored item', async () => {
    const file = join(dir, 'many.jsonl');
    writeFileSync(
      file,
      Array.from({ length: 250 }, (_, i) => JSON.stringify({ title: `N${i}`, content: 'text' })).join('\n'),
    );
    const sizes: number[] = [];
    const sender: StoreSender = {
      org: async () => 'acme',
      store: async (items) => {
        sizes.push(items.length);
        return items.map((item) => ({ ok: true, id: `id-${item.title}` }));
      },
      upload: async () => ({ ok: false, error: 'this test sends no documents' }),
      close: async () => undefined,
    };
    const options = {
      source: file,
      sender,
      defaults: { artifactType: 'finding' as const, tags: [] },
      stateFile: join(dir, 'many.state.jsonl'),
      progress: { kind: 'lines' as const, everyMs: 0 },
      out: () => undefined,
      err: () => undefined,
    };
    expect(await importLibrary(options)).toMatchObject({ stored: 250, failed: 0 });
    expect(sizes).toEqual([100, 100, 50]);
    expect(await importLibrary(options)).toMatchObject({ stored: 0, alreadyImported: 250 });
    expect(sizes).toHaveLength(3);
  });
});
