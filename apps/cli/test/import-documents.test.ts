import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningSystem } from '@quarry/system';
import { pagedPdf, pageSentence, passwordProtectedPdf } from '@quarry/testing';
import { callTool, quarryWith, search, startTestSystem, until, useTestSystem } from './system-support.js';

// `quarry import` of PDFs into a real Quarry: each is uploaded whole and kept as a source document;
// a sentence of page 37 is found by search_sources with `page: 37`; the original downloads byte for
// byte; a password-protected and a corrupt PDF are reported by name, each on its own line, and the
// others still go in; a rerun sends nothing.

const { token } = useTestSystem();
let running: RunningSystem;
let work: string;

beforeAll(async () => {
  running = await startTestSystem();
  work = mkdtempSync(join(tmpdir(), 'quarry-import-documents-'));
});
afterAll(async () => {
  await running?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const importCli = (...args: string[]) => quarryWith({ QUARRY_TOKEN: token() }, 'import', ...args, '--url', running.url);

describe('quarry import of PDFs', () => {
  it('uploads each PDF as a source document, found by page; bad ones are reported by name; a rerun sends nothing', async () => {
    const dir = join(work, 'papers');
    mkdirSync(join(dir, 'reports'), { recursive: true });
    const report = await pagedPdf(50, 'Harbour report');
    writeFileSync(join(dir, 'reports', 'harbour.pdf'), report);
    writeFileSync(join(dir, 'short.pdf'), await pagedPdf(2, 'A short note'));
    writeFileSync(join(dir, 'locked.pdf'), await passwordProtectedPdf());
    writeFileSync(join(dir, 'broken.pdf'), '%PDF-1.7 nothing more');
    writeFileSync(join(dir, 'notes.md'), '# Tides\n\nTides follow the moon.');

    const first = await importCli(dir);
    expect(first.out).toMatch(/Importing 5 file\(s\) into acme/);
    expect(first.out).toMatch(/Imported: 3 stored \([\d.]+\/s\), 0 already there, 2 failed, of 5/);
    expect(first.err).toMatch(/✗ locked\.pdf: .*\[DOCUMENT_ENCRYPTED\]/);
    expect(first.err).toMatch(/✗ broken\.pdf: .*\[DOCUMENT_CORRUPT\]/);
    expect(first.code).toBe(1);

    const query = 'harbour 37 shipped 407 crates of tin';
    let hit: { sourceId: string; page?: number; url?: string; textSnippet?: string } | undefined;
    await until(async () => {
      hit = (await search(running.url, token(), query)).find((h) => h.title === 'Harbour report');
      return hit !== undefined;
    });
    expect(hit).toMatchObject({ page: 37, url: `quarry://artifacts/${hit!.sourceId}#page=37` });
    expect(hit!.textSnippet).toContain('407 crates');
    const page = await callTool<{ text: string }>(running.url, token(), 'fetch', { id: hit!.url });
    expect(page.text).toContain(pageSentence(37));

    const original = await fetch(new URL(`/documents/${hit!.sourceId}/original`, running.url), {
      headers: { authorization: `Bearer ${token()}` },
    });
    const bytes = Buffer.from(await original.arrayBuffer());
    expect(bytes.equals(report)).toBe(true);
    expect(original.headers.get('x-content-sha256')).toBe(createHash('sha256').update(report).digest('hex'));

    const again = await importCli(dir);
    expect(again.out).toMatch(/Imported: 0 stored .*3 already there, 2 failed, of 5/);
  });
});
