import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import type { RunningSystem } from '@quarry/system';
import { openStoreSender } from '../src/import-sender.js';
import { importLibrary } from '../src/import.js';
import { quarry, quarryWith, search, startTestSystem, system, until, useTestSystem } from './system-support.js';

// `quarry import` into a real Quarry (every service, the gateway, the indexer): a directory and a
// JSONL, each bad document reported without stopping, an interrupted import resumed without
// duplicates, and a rerun that sends nothing.

const { token } = useTestSystem();
let running: RunningSystem;
let work: string;

beforeAll(async () => {
  running = await startTestSystem();
  work = mkdtempSync(join(tmpdir(), 'quarry-import-'));
});
afterAll(async () => {
  await running?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const importCli = (...args: string[]) => quarryWith({ QUARRY_TOKEN: token() }, 'import', ...args, '--url', running.url);

async function artifactsTitled(like: string): Promise<string[]> {
  const { rows } = await sql<{ title: string }>`
    select title from artifact.research_artifacts where title like ${like} order by title`.execute(system.admin);
  return rows.map((r) => r.title);
}

describe('quarry import', () => {
  it('imports a directory of Markdown, text and HTML; reports the rest; a rerun sends nothing', async () => {
    const dir = join(work, 'library');
    mkdirSync(join(dir, 'notes'), { recursive: true });
    mkdirSync(join(dir, '.git'));
    writeFileSync(
      join(dir, 'kettles.md'),
      '---\n\n# Kettle holes in outwash plains\n\nBuried ice melts and leaves kettle holes.',
    );
    writeFileSync(join(dir, 'notes', 'eskers.txt'), 'Eskers are sinuous ridges of meltwater gravel.');
    writeFileSync(
      join(dir, 'drumlins.html'),
      '<html><head><title>Drumlin fields</title></head><body><h1>Drumlins</h1><p>Drumlins are streamlined hills shaped by flowing ice.</p><script>x()</script></body></html>',
    );
    writeFileSync(join(dir, 'scan.pdf'), '%PDF-1.7 binary');
    writeFileSync(join(dir, 'empty.txt'), '   \n');
    writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main');

    const first = await importCli(dir);
    expect(first.code).toBe(1);
    expect(first.out).toMatch(/Importing 5 file\(s\) into acme/);
    expect(first.out).toMatch(/Imported: 3 stored \([\d.]+\/s\), 0 already there, 2 failed, of 5/);
    // A PDF is sent whole now: the server reads its bytes and names what is wrong with them.
    expect(first.err).toMatch(/✗ scan\.pdf: .*\[DOCUMENT_CORRUPT\]/);
    expect(first.err).toMatch(/✗ empty\.txt: no text/);
    expect(first.err).toMatch(/error: 2 item\(s\) not imported/);
    expect(await artifactsTitled('%')).toEqual(['Drumlin fields', 'Kettle holes in outwash plains', 'eskers']);

    const hits = async (q: string) => (await search(running.url, token(), q)).map((h) => h.title);
    // Each file is its own store_research call, so each becomes searchable on its own.
    await until(async () => (await hits('streamlined hills')).includes('Drumlin fields'));
    await until(async () => (await hits('sinuous meltwater gravel')).includes('eskers'));
    // HTML is stored and indexed as its text, without markup or scripts.
    const { rows } = await sql<{ content_text: string }>`
      select content_text from artifact.research_artifacts where title = 'Drumlin fields'`.execute(system.admin);
    expect(rows[0]!.content_text).toMatch(/^Drumlins\n+Drumlins are streamlined hills shaped by flowing ice\./);
    expect(rows[0]!.content_text).not.toMatch(/[<>]|x\(\)/);

    const again = await importCli(dir);
    expect(again.out).toMatch(/Importing 5 file\(s\) into acme \(3 stored before/);
    expect(again.out).toMatch(/Imported: 0 stored .*3 already there, 2 failed, of 5/);
    expect(await artifactsTitled('%')).toHaveLength(3);
  });

  it('imports a JSONL library: fields per line, a clear error per bad line, the rest stored', async () => {
    const file = join(work, 'papers.jsonl');
    const lines = [
      { title: 'Paper A on firn', content: 'Firn densifies into glacial ice over decades.', tags: ['firn'] },
      '{"title": "broken',
      {
        title: 'Paper B',
        content: 'Ablation zones lose more mass than they gain.',
        url: 'https://example.org/b',
        artifactType: 'summary',
      },
      { title: 'No content' },
      { title: 'Bad type', content: 'x', artifactType: 'novel' },
      { title: 'Tag too long', content: 'Refused by the server.', tags: ['t'.repeat(150)] },
      '',
      { title: 'Paper C', content: 'Calving fronts retreat.' },
    ];
    writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));

    const run = await importCli(file, '--tags', 'imported,library');
    expect(run.out).toMatch(/Imported: 3 stored .*0 already there, 4 failed, of 7/);
    expect(run.err).toMatch(/✗ line 2: not valid JSON/);
    expect(run.err).toMatch(/✗ line 4: content: /);
    expect(run.err).toMatch(/✗ line 5: artifactType: /);
    expect(run.err).toMatch(/✗ line 6: .*tags/);
    const { rows } = await sql<{ title: string; artifact_type: string; tags: string[]; content: unknown }>`
      select title, artifact_type, tags, content from artifact.research_artifacts
      where title like 'Paper%' order by title`.execute(system.admin);
    expect(rows).toEqual([
      { title: 'Paper A on firn', artifact_type: 'finding', tags: ['imported', 'library', 'firn'], content: {} },
      {
        title: 'Paper B',
        artifact_type: 'summary',
        tags: ['imported', 'library'],
        content: { url: 'https://example.org/b' },
      },
      { title: 'Paper C', artifact_type: 'finding', tags: ['imported', 'library'], content: {} },
    ]);
    const state = readFileSync(`${file}.quarry-import.jsonl`, 'utf8').trim().split('\n');
    expect(state).toHaveLength(3);
  });

  it('resumes an interrupted import without duplicates', async () => {
    const file = join(work, 'many.jsonl');
    const N = 40;
    writeFileSync(
      file,
      Array.from({ length: N }, (_, i) =>
        JSON.stringify({ title: `Resume ${String(i).padStart(2, '0')}`, content: `Document number ${i}.` }),
      ).join('\n'),
    );
    const sender = await openStoreSender({ url: running.url, token: token() });
    const stop = new AbortController();
    let calls = 0;
    const interrupted = await importLibrary({
      source: file,
      // Ctrl-C after the 10th call (of 3 items each): what is in flight finishes and is recorded.
      sender: { ...sender, store: (items) => (++calls === 10 && stop.abort(), sender.store(items)) },
      batchLimits: { maxItems: 3 },
      defaults: { artifactType: 'finding', tags: [] },
      progress: { kind: 'lines', everyMs: 0 },
      out: () => undefined,
      err: () => undefined,
      signal: stop.signal,
    }).finally(() => sender.close());
    expect(interrupted.interrupted).toBe(true);
    expect(interrupted.stored).toBeGreaterThanOrEqual(10);
    expect(interrupted.stored).toBeLessThan(N);
    expect(await artifactsTitled('Resume %')).toHaveLength(interrupted.stored);

    const resumed = await importCli(file);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toMatch(
      new RegExp(`Imported: ${N - interrupted.stored} stored .*${interrupted.stored} already there, 0 failed, of ${N}`),
    );
    const titles = await artifactsTitled('Resume %');
    expect(titles).toHaveLength(N);
    expect(new Set(titles).size).toBe(N);
  });

  it('stores the good items of a batch and reports the refused one; a rerun sends only that one', async () => {
    const file = join(work, 'mixed.jsonl');
    const missingPlan = '00000000-0000-4000-8000-000000000000';
    writeFileSync(
      file,
      [
        { title: 'Mixed 1', content: 'Moulins drain meltwater to the bed.' },
        { title: 'Mixed 2', content: 'Nunataks rise above the ice sheet.' },
        { title: 'Mixed 3', content: 'Attached to a plan that does not exist.', planId: missingPlan },
        { title: 'Mixed 4', content: 'Sastrugi are ridges carved by wind.' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    const sender = await openStoreSender({ url: running.url, token: token() });
    const sent: string[][] = [];
    const errors: string[] = [];
    const run = (): ReturnType<typeof importLibrary> =>
      importLibrary({
        source: file,
        sender: { ...sender, store: (items) => (sent.push(items.map((i) => i.title)), sender.store(items)) },
        defaults: { artifactType: 'finding', tags: [] },
        progress: { kind: 'lines', everyMs: 0 },
        out: () => undefined,
        err: (l) => errors.push(l),
      });
    try {
      const first = await run();
      expect(sent).toEqual([['Mixed 1', 'Mixed 2', 'Mixed 3', 'Mixed 4']]);
      expect(first).toMatchObject({ total: 4, stored: 3, failed: 1 });
      expect(errors).toEqual([expect.stringMatching(/✗ line 3: .*PLAN_NOT_FOUND/)]);
      expect(await artifactsTitled('Mixed %')).toEqual(['Mixed 1', 'Mixed 2', 'Mixed 4']);
      expect(readFileSync(`${file}.quarry-import.jsonl`, 'utf8').trim().split('\n')).toHaveLength(3);

      const again = await run();
      expect(sent[1]).toEqual(['Mixed 3']);
      expect(again).toMatchObject({ stored: 0, alreadyImported: 3, failed: 1 });
      expect(await artifactsTitled('Mixed %')).toHaveLength(3);
    } finally {
      await sender.close();
    }
  });

  it('keeps every call under the body limit: large documents go in several batches, one too large for any call is reported', async () => {
    const file = join(work, 'large.jsonl');
    // 24 documents of 200 KB: 4.8 MB in all, more than one call of the gateway's 4 MiB may carry.
    const big = (i: number) => ({
      title: `Large ${String(i).padStart(2, '0')}`,
      content: `${i} ${'moraine '.repeat(25_000)}`,
    });
    const lines = Array.from({ length: 24 }, (_, i) => big(i));
    lines.splice(5, 0, { title: 'Huge', content: 'x'.repeat(4_300_000) });
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));

    const sender = await openStoreSender({ url: running.url, token: token() });
    const sent: number[] = [];
    const errors: string[] = [];
    const summary = await importLibrary({
      source: file,
      sender: { ...sender, store: (items) => (sent.push(items.length), sender.store(items)) },
      defaults: { artifactType: 'finding', tags: [] },
      progress: { kind: 'lines', everyMs: 0 },
      out: () => undefined,
      err: (l) => errors.push(l),
    }).finally(() => sender.close());
    expect(summary).toMatchObject({ total: 25, stored: 24, failed: 1 });
    expect(errors).toEqual([
      expect.stringMatching(/✗ line 6: too large to send \(\d+ bytes; one call carries at most/),
    ]);
    // 1 MiB per call: 5 documents of ≈200 KB each.
    expect(sent).toEqual([5, 5, 5, 5, 4]);
    expect(await artifactsTitled('Large %')).toHaveLength(24);
    expect(await artifactsTitled('Huge')).toEqual([]);
  });

  it('retries a batch whose call failed as a whole, and never one that returned per-item results', async () => {
    // The indexer runs in this process: while it indexes the large documents stored just before,
    // it can hold the event loop long enough for a call to miss its deadline. Wait it out, so this
    // test is about the retry alone.
    await until(async () => (await running.services.indexer.lag()).pending === 0, 60_000);
    const file = join(work, 'retried.jsonl');
    writeFileSync(
      file,
      [
        { title: 'Retried 1', content: 'Seracs are blocks of ice between crevasses.' },
        {
          title: 'Retried 2',
          content: 'Refused: a plan that does not exist.',
          planId: '00000000-0000-4000-8000-000000000001',
        },
        { title: 'Retried 3', content: 'Cirques are bowls carved at a glacier head.' },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    // The network between the import and the gateway: the first batch call is answered 503
    // without reaching the server (a restarting gateway); every batch call is counted.
    let batchCalls = 0;
    const flaky: typeof fetch = async (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"store_research_batch"') && ++batchCalls === 1)
        return new Response('restarting', { status: 503 });
      return fetch(input, init);
    };
    const sender = await openStoreSender({ url: running.url, token: token(), fetch: flaky, retryDelayMs: 10 });
    const errors: string[] = [];
    const summary = await importLibrary({
      source: file,
      sender,
      defaults: { artifactType: 'finding', tags: [] },
      progress: { kind: 'lines', everyMs: 0 },
      out: () => undefined,
      err: (l) => errors.push(l),
    }).finally(() => sender.close());
    // Once refused whole, once answered item by item: the refusal of item 2 is not retried.
    expect(batchCalls).toBe(2);
    // Together, so that a failure shows what each item was answered.
    expect({ ...summary, errors }).toMatchObject({
      stored: 2,
      failed: 1,
      errors: [expect.stringMatching(/✗ line 2: .*PLAN_NOT_FOUND/)],
    });
    expect(await artifactsTitled('Retried %')).toEqual(['Retried 1', 'Retried 3']);
  });

  it('sends one store_research per item for a token whose allowlist lacks the batch tool', async () => {
    const created = await quarry(
      'token',
      'create',
      '--org',
      'acme',
      '--user',
      'ann@acme.test',
      '--tools',
      'ping,store_research',
    );
    expect(created.code).toBe(0);
    const file = join(work, 'single.jsonl');
    writeFileSync(
      file,
      ['Single 1', 'Single 2', 'Single 3']
        .map((title) => JSON.stringify({ title, content: `${title} text.` }))
        .join('\n'),
    );
    const tools: string[] = [];
    const counting: typeof fetch = async (input, init) => {
      const tool = typeof init?.body === 'string' ? /"name":"(store_research\w*)"/.exec(init.body)?.[1] : undefined;
      if (tool) tools.push(tool);
      return fetch(input, init);
    };
    const sender = await openStoreSender({ url: running.url, token: created.out.trim(), fetch: counting });
    const summary = await importLibrary({
      source: file,
      sender,
      defaults: { artifactType: 'finding', tags: [] },
      progress: { kind: 'lines', everyMs: 0 },
      out: () => undefined,
      err: () => undefined,
    }).finally(() => sender.close());
    expect(summary).toMatchObject({ stored: 3, failed: 0 });
    expect(tools).toEqual(['store_research', 'store_research', 'store_research']);
    expect(await artifactsTitled('Single %')).toEqual(['Single 1', 'Single 2', 'Single 3']);
  });

  it('refuses a bad token before reading anything, and a missing source clearly', async () => {
    const bad = await quarryWith({ QUARRY_TOKEN: 'qry_nope' }, 'import', work, '--url', running.url);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/error: /);
    const missing = await importCli(join(work, 'nope.jsonl'));
    expect(missing).toMatchObject({ code: 1, err: expect.stringMatching(/no such file|ENOENT/i) });
  });
});
