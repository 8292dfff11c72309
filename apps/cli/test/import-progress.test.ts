import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { StoreSender } from '../src/import-sender.js';
import { importLibrary } from '../src/import.js';

// What a person watching `quarry import` sees on a terminal: a progress bar that reaches the
// total, with each failure printed on its own line above it (the server side is a stand-in here:
// import.test.ts runs the real system).

const dir = mkdtempSync(join(tmpdir(), 'quarry-import-bar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A terminal-like stream that keeps what was drawn. */
function terminal(): Writable & { isTTY: boolean; columns: number; drawn: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  }) as Writable & { isTTY: boolean; columns: number; drawn: () => string };
  stream.isTTY = true;
  stream.columns = 100;
  stream.drawn = () => text;
  return stream;
}

const sender: StoreSender = {
  org: async () => 'acme',
  store: async (items) =>
    items.map((item, i) =>
      item.title.includes('refused') ? { ok: false, error: 'title: refused' } : { ok: true, id: `id-${i}` },
    ),
  upload: async () => ({ ok: false, error: 'this test sends no documents' }),
  close: async () => undefined,
};

describe('the progress bar', () => {
  it('draws the bar to the total and prints failures above it', async () => {
    const file = join(dir, 'lib.jsonl');
    writeFileSync(
      file,
      [
        ...Array.from({ length: 12 }, (_, i) => JSON.stringify({ title: `Doc ${i}`, content: 'text' })),
        JSON.stringify({ title: 'refused one', content: 'text' }),
      ].join('\n'),
    );
    const stream = terminal();
    const out: string[] = [];
    const summary = await importLibrary({
      source: file,
      sender,
      defaults: { artifactType: 'finding', tags: [] },
      stateFile: join(dir, 'state.jsonl'),
      progress: { kind: 'bar', stream },
      out: (l) => out.push(l),
      err: (l) => out.push(`ERR ${l}`),
    });
    expect(summary).toMatchObject({ total: 13, stored: 12, failed: 1 });
    expect(stream.drawn()).toMatch(/100% \| 13\/13/);
    expect(stream.drawn()).toMatch(/✗ line 13: title: refused\n/);
    // On a terminal the failure goes above the bar, not to the log.
    expect(out.filter((l) => l.startsWith('ERR'))).toEqual([]);
    expect(out.at(-1)).toMatch(/Run the same command again/);
  });
});
