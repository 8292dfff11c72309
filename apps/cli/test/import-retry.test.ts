import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import type { RunningSystem } from '@quarry/system';
import { openStoreSender } from '../src/import-sender.js';
import { importLibrary } from '../src/import.js';
import { callTool, startTestSystem, system, useTestSystem } from './system-support.js';

// `quarry import` when the server stored a batch but the import never learnt it: the connection
// cut after the answer was sent (the import retries the call), or the import killed before it
// wrote its state file (a rerun sends the items again). Each item is sent with an idempotency key
// derived from its state-file key, so either way every document is stored exactly once. And the
// keys through the MCP endpoint: a replay, and other content refused as a tool error.

const { token } = useTestSystem();
let running: RunningSystem;
let work: string;

beforeAll(async () => {
  running = await startTestSystem();
  work = mkdtempSync(join(tmpdir(), 'quarry-import-retry-'));
});
afterAll(async () => {
  await running?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function titled(like: string): Promise<string[]> {
  const { rows } = await sql<{ title: string }>`
    select title from artifact.research_artifacts where title like ${like} order by title`.execute(system.admin);
  return rows.map((r) => r.title);
}

function library(name: string, n: number): string {
  const file = join(work, `${name}.jsonl`);
  const lines = Array.from({ length: n }, (_, i) => ({ title: `${name} ${i}`, content: `${name} document ${i}.` }));
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
  return file;
}

const run = (source: string, sender: Awaited<ReturnType<typeof openStoreSender>>, stateFile?: string) =>
  importLibrary({
    source,
    sender,
    stateFile,
    batchLimits: { maxItems: 5 },
    defaults: { artifactType: 'finding', tags: [] },
    progress: { kind: 'lines', everyMs: 0 },
    out: () => undefined,
    err: () => undefined,
  });

describe('quarry import with a lost answer', () => {
  it('retries a batch whose connection was cut after the server committed it: each item stored once', async () => {
    const file = library('Cut', 12);
    // The network: the first batch call reaches the server and is answered in full, then the
    // connection drops before the import reads the answer.
    let cuts = 0;
    const cutting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"store_research_batch"') && ++cuts === 1) {
        await response.text();
        throw new TypeError('fetch failed');
      }
      return response;
    };
    const sender = await openStoreSender({ url: running.url, token: token(), fetch: cutting, retryDelayMs: 10 });
    const summary = await run(file, sender).finally(() => sender.close());
    expect(cuts).toBeGreaterThan(1);
    expect(summary).toMatchObject({ stored: 12, failed: 0 });
    const titles = await titled('Cut %');
    expect(titles).toHaveLength(12);
    expect(new Set(titles).size).toBe(12);
  });

  it('stores nothing twice when rerun after a crash that lost the state file', async () => {
    const file = library('Crash', 8);
    const sender = await openStoreSender({ url: running.url, token: token() });
    try {
      expect(await run(file, sender, join(work, 'crash-1.jsonl'))).toMatchObject({ stored: 8 });
      // The server committed, the state file never heard: the rerun sends every item again.
      const rerun = await run(file, sender, join(work, 'crash-2.jsonl'));
      expect(rerun).toMatchObject({ stored: 8, alreadyImported: 0, failed: 0 });
    } finally {
      await sender.close();
    }
    expect(await titled('Crash %')).toHaveLength(8);
  });
});

describe('store_research through the MCP endpoint with an idempotencyKey', () => {
  it('answers a retry with the first artifact and refuses other content under the key', async () => {
    const args = { artifactType: 'finding', title: 'Keyed 1', content: { n: 1 }, idempotencyKey: 'mcp-key-1' };
    const first = await callTool<{ id: string }>(running.url, token(), 'store_research', args);
    const again = await callTool<{ id: string }>(running.url, token(), 'store_research', args);
    expect(again.id).toBe(first.id);
    const refused = await callTool(running.url, token(), 'store_research', { ...args, title: 'Keyed 2' }).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(refused).toMatch(/idempotencyKey.*mcp-key-1.*different request.*\[IDEMPOTENCY_KEY_REUSED\]/);
    expect(await titled('Keyed %')).toEqual(['Keyed 1']);
  });
});
