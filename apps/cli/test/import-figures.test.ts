import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunningSystem } from '@quarry/system';
import { FIGURE_CAPTION, figurePng, illustratedPdf, TABLE_CAPTION } from '@quarry/testing';
import { callTool, quarryWith, startTestSystem, toolResult, useTestSystem } from './system-support.js';

// `quarry import` of a PDF with a figure and a table into a real Quarry: the figure on page 12
// comes back through the official MCP client as image content (the known image) with its caption
// and page, the table on page 20 as markdown with its page.

const { token } = useTestSystem();
let running: RunningSystem;
let work: string;

beforeAll(async () => {
  running = await startTestSystem();
  work = mkdtempSync(join(tmpdir(), 'quarry-import-figures-'));
});
afterAll(async () => {
  await running?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('quarry import of a PDF with a figure and a table', () => {
  it('keeps them: the figure of page 12 comes back as an image with its caption, the table of page 20 as markdown', async () => {
    writeFileSync(join(work, 'illustrated.pdf'), await illustratedPdf());
    const imported = await quarryWith({ QUARRY_TOKEN: token() }, 'import', work, '--url', running.url);
    expect(imported.out).toMatch(/Imported: 1 stored/);

    const { artifacts } = await callTool<{ artifacts: { id: string; title: string }[] }>(
      running.url,
      token(),
      'list_artifacts',
    );
    const id = artifacts.find((x) => x.title === 'An illustrated report of 50 pages')!.id;
    const result = await toolResult(running.url, token(), 'get_artifact', { id, figure: 1 });
    const image = result.content.find((c) => c.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from(image?.type === 'image' ? image.data : '', 'base64').equals(Buffer.from(figurePng()))).toBe(
      true,
    );
    expect(result.structuredContent).toMatchObject({ figures: [{ number: 1, page: 12, caption: FIGURE_CAPTION }] });

    const page = await callTool<{ tables: { page: number; caption?: string; markdown?: string }[] }>(
      running.url,
      token(),
      'get_artifact',
      { id, pages: '20' },
    );
    expect(page.tables).toEqual([
      expect.objectContaining({
        page: 20,
        caption: TABLE_CAPTION,
        markdown: expect.stringContaining('| South | 95 | 2.25 |'),
      }),
    ]);
  });
});
