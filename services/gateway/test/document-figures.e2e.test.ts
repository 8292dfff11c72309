import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { FIGURE_CAPTION, figurePng, illustratedPdf, TABLE_CAPTION } from '@quarry/testing';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';
import { expectToolError, toolsOf, type CallTool } from './tool-answers.js';

// A document's figures and tables end to end, through the official MCP client: the generated
// 50-page PDF's figure on page 12 comes back as image content (the known image, byte for byte)
// beside the JSON text with its caption and page; the table on page 20 as markdown with its
// page; another org's document answers a figure as a missing one does.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let clientA: Client;
let clientB: Client;
let a: { call: CallTool; ok: CallTool };
let b: { call: CallTool; ok: CallTool };
let documentId = '';

beforeAll(async () => {
  gateway = await startTestGateway();
  clientA = await connectClient(gateway.url, gateway.token, 'modern');
  await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  const tokenB = (await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' })).token;
  clientB = await connectClient(gateway.url, tokenB, 'legacy');
  a = toolsOf(clientA);
  b = toolsOf(clientB);
  const pdf = await illustratedPdf();
  documentId = (await a.ok('import_document', { data: pdf.toString('base64'), fileName: 'illustrated.pdf' })).data.id;
}, 60_000);
afterAll(async () => {
  await clientA?.close();
  await clientB?.close();
  await gateway?.close();
});

describe('a PDF’s figures and tables through get_artifact', () => {
  it('gives the figure on page 12 as image content, with its caption and page in the text beside it', async () => {
    const result = await clientA.callTool({ name: 'get_artifact', arguments: { id: documentId, figure: 1 } });
    expect(result.isError).toBeFalsy();
    const [text, image] = result.content as { type: string; text?: string; data?: string; mimeType?: string }[];
    expect(text!.type).toBe('text');
    const data = JSON.parse(text!.text!);
    expect(data.figures).toEqual([expect.objectContaining({ number: 1, page: 12, caption: FIGURE_CAPTION })]);
    expect(data.units).toEqual([expect.objectContaining({ number: 12 })]);
    expect(data).not.toHaveProperty('image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(Buffer.from(image!.data!, 'base64').equals(Buffer.from(figurePng()))).toBe(true);
    expect(result.structuredContent).not.toHaveProperty('image');
  });

  it('lists the figures of the document, and gives the table on page 20 as markdown with its page', async () => {
    const whole = await a.ok('get_artifact', { id: documentId });
    expect(whole.data.figures).toEqual([expect.objectContaining({ number: 1, page: 12, caption: FIGURE_CAPTION })]);
    expect(whole.data.tables).toEqual([expect.objectContaining({ number: 1, page: 20, caption: TABLE_CAPTION })]);
    const page = await a.ok('get_artifact', { id: documentId, pages: '20' });
    expect(page.data.tables).toEqual([
      expect.objectContaining({
        page: 20,
        caption: TABLE_CAPTION,
        markdown: expect.stringContaining('| Harbour | Crates | Tin (t) |\n| --- | --- | --- |\n| North | 120 | 3.5 |'),
      }),
    ]);
    expectToolError(await a.call('get_artifact', { id: documentId, figure: 9 }), 'FIGURE_NOT_FOUND', /no figure 9/);
  });

  it('answers another org’s figure and table pages exactly as a missing document', async () => {
    for (const ask of [{ figure: 1 }, { pages: '20' }]) {
      const theirs = await b.call('get_artifact', { id: documentId, ...ask });
      const missingId = randomUUID();
      const missing = await b.call('get_artifact', { id: missingId, ...ask });
      expectToolError(theirs, 'ARTIFACT_NOT_FOUND');
      expectToolError(missing, 'ARTIFACT_NOT_FOUND');
      expect(theirs.data.error.message.replaceAll(documentId, 'ID')).toBe(
        missing.data.error.message.replaceAll(missingId, 'ID'),
      );
    }
  });
});
