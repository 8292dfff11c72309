import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { pagedPdf, pageSentence } from '@quarry/testing';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';
import { expectToolError, sleep, toolsOf, type CallTool, type ToolAnswer } from './tool-answers.js';

// import_url end to end, as `quarry start` runs it, through the official MCP client in both
// protocol eras: the artifact store fetches a web page and a PDF from a real HTTP server on
// 127.0.0.1 (allowed by the operator setting QUARRY_IMPORT_URL_ALLOW), search finds the page's
// sentence, fetch names the URL it came from, the PDF reads by page and downloads byte for byte;
// a redirect to a private address is refused with a code the model can read; another org's
// import is its own document and the first is missing to it.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let web: Server;
let origin = '';
let pdf: Buffer;
let clientA: Client;
let clientB: Client;
let a: { call: CallTool; ok: CallTool };
let b: { call: CallTool; ok: CallTool };

const ARTICLE = `<!doctype html><html lang="en"><head><title>Lighthouse keepers of Skerry Point</title></head>
<body><nav>Home | Archive</nav><article><h1>Lighthouse keepers of Skerry Point</h1>
<p>The keepers of Skerry Point logged 1,204 hours of fog in the winter of 1911, a record that stood for forty years.</p>
<p>Their relief boat came every fourteen days, weather permitting, and twice failed to come for a month.</p>
<p>The lamp burned colza oil until 1902 and paraffin after that, trimmed at dusk and again at midnight.</p>
</article></body></html>`;

async function searchUntil(query: string, until: (answer: ToolAnswer) => boolean): Promise<ToolAnswer> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await a.ok('search_sources', { query });
    if (until(answer) || Date.now() > deadline) return answer;
    await sleep(100);
  }
}

beforeAll(async () => {
  pdf = await pagedPdf(4, 'Skerry Point tonnage');
  web = createServer((req, res) => {
    if (req.url === '/keepers.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"k1"' });
      res.end(ARTICLE);
    } else if (req.url === '/tonnage.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(pdf);
    } else if (req.url === '/internal') {
      res.writeHead(302, { location: 'http://192.168.0.10/' });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  gateway = await startTestGateway({ QUARRY_IMPORT_URL_ALLOW: '127.0.0.1' });
  clientA = await connectClient(gateway.url, gateway.token, 'modern');
  await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  const tokenB = (await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' })).token;
  clientB = await connectClient(gateway.url, tokenB, 'legacy');
  a = toolsOf(clientA);
  b = toolsOf(clientB);
}, 60_000);
afterAll(async () => {
  await clientA?.close();
  await clientB?.close();
  await gateway?.close();
  web?.closeAllConnections();
  await new Promise<void>((resolve) => (web ? web.close(() => resolve()) : resolve()));
});

describe('import_url through the official MCP client', () => {
  let pageId = '';

  it('imports a web page the server fetches itself, searchable, citing the URL it came from', async () => {
    const url = `${origin}/keepers.html`;
    const answer = await a.ok('import_url', { url });
    pageId = answer.data.id;
    expect(answer.data).toMatchObject({
      title: 'Lighthouse keepers of Skerry Point',
      duplicate: false,
      document: { format: 'html', sourceUrl: url },
      fetched: { requestedUrl: url, finalUrl: url, httpStatus: 200, etag: '"k1"' },
    });
    const found = await searchUntil('hours of fog at Skerry Point', (x) =>
      x.data.results.some((r: { id: string }) => r.id === pageId),
    );
    expect(found.data.results.map((r: { id: string }) => r.id)).toContain(pageId);
    const item = await a.ok('fetch', { id: pageId });
    expect(item.data.text).toContain('logged 1,204 hours of fog');
    expect(item.data.metadata).toMatchObject({ source_url: url });
  });

  it('imports a PDF, read by page and downloaded byte for byte', async () => {
    const answer = await a.ok('import_url', { url: `${origin}/tonnage.pdf` });
    expect(answer.data.document).toMatchObject({
      format: 'pdf',
      unitCount: 4,
      sha256: createHash('sha256').update(pdf).digest('hex'),
    });
    const read = await a.ok('get_artifact', { id: answer.data.id, pages: '3' });
    expect(read.data.contentText).toContain(pageSentence(3));
    const download = await fetch(`${gateway.base}/documents/${answer.data.id}/original`, {
      headers: { authorization: `Bearer ${gateway.token}` },
    });
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
  });

  it('refuses a redirect to a private address with a code the model can read, storing nothing', async () => {
    const before = (await a.ok('list_artifacts', {})).data.artifacts.length;
    expectToolError(await a.call('import_url', { url: `${origin}/internal` }), 'URL_BLOCKED', /rule: private/);
    expect((await a.ok('list_artifacts', {})).data.artifacts.length).toBe(before);
  });

  it("keeps each org's imports its own (legacy protocol era for the other org)", async () => {
    const theirs = await b.ok('import_url', { url: `${origin}/keepers.html` });
    expect(theirs.data).toMatchObject({ duplicate: false });
    expect(theirs.data.id).not.toBe(pageId);
    expectToolError(await b.call('get_artifact', { id: pageId }), 'ARTIFACT_NOT_FOUND');
    expectToolError(await b.call('fetch', { id: pageId }), 'ITEM_NOT_FOUND');
  });
});
