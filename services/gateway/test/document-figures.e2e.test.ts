import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import { FIGURE_CAPTION, figurePng, illustratedPdf, TABLE_CAPTION } from '@quarry/testing';
import type { Kysely } from 'kysely';
import { freePort } from './free-port.js';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';
import { expectToolError, toolsOf, type CallTool } from './tool-answers.js';

// A document's figures and tables end to end, through the official MCP client: the generated
// 50-page PDF's figure on page 12 comes back as image content (the known image, byte for byte)
// beside the JSON text with its caption and page; the table on page 20 as markdown with its
// page; another org's document answers a figure as a missing one does. In the web app, a search
// hit shows the page it is on and opens that page of the document, with its figures and tables.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let clientA: Client;
let clientB: Client;
let a: { call: CallTool; ok: CallTool };
let b: { call: CallTool; ok: CallTool };
let documentId = '';
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  const port = await freePort();
  gateway = await startTestGateway({ PORT: String(port), QUARRY_PUBLIC_URL: `http://127.0.0.1:${port}` });
  await createOAuthAdmin(gateway.database.admin as Kysely<IdentityDatabase>).setPassword('ada@acme.test', PASSWORD);
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

/** A browser session's cookie, after the app's sign-in. */
async function signIn(): Promise<string> {
  const form = await fetch(`${gateway.base}/app/sign-in`);
  const nonce = form.headers.getSetCookie()[0]!.split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const answer = await fetch(`${gateway.base}/app/sign-in`, {
    method: 'POST',
    headers: { cookie: nonce, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, email: 'ada@acme.test', password: PASSWORD }),
    redirect: 'manual',
  });
  return answer.headers.getSetCookie()[0]!.split(';')[0]!;
}

describe('pages of a document in the web app', () => {
  it('shows the page a search hit is on, and opens that page with its number, figures and tables', async () => {
    const cookie = await signIn();
    const get = async (path: string) => {
      const response = await fetch(`${gateway.base}${path}`, { headers: { cookie } });
      return { status: response.status, body: await response.text() };
    };
    const query = encodeURIComponent('harbour 12 shipped 132 crates of tin');
    let results = await get(`/app/search?q=${query}`);
    for (let tries = 0; tries < 150 && !results.body.includes(documentId); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      results = await get(`/app/search?q=${query}`);
    }
    expect(results.body).toContain('<span class="q-page">page 12</span>');
    expect(results.body).toContain(`href="/app/artifacts/${documentId}?page=12"`);

    const page12 = await get(`/app/artifacts/${documentId}?page=12`);
    expect(page12.status).toBe(200);
    expect(page12.body).toContain('Page 12 of 50');
    expect(page12.body).toContain('illustrated.pdf (50 pages)');
    expect(page12.body).toContain(`<li>${FIGURE_CAPTION} <span class="muted">(96 × 64 px)</span></li>`);
    expect(page12.body).toContain(`href="/app/artifacts/${documentId}?page=13"`);
    const page20 = await get(`/app/artifacts/${documentId}?page=20`);
    expect(page20.body).toContain(`<figcaption>${TABLE_CAPTION}</figcaption>`);
    expect(page20.body).toMatch(/<table>[\s\S]*<th>Harbour<\/th>[\s\S]*<td>2.25<\/td>/);
    expect((await get(`/app/artifacts/${documentId}?page=51`)).status).toBe(404);
  });
});
