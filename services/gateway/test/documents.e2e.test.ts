import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@modelcontextprotocol/client';
import { pagedPdf, pageSentence, passwordProtectedPdf } from '@quarry/testing';
import { startTestGateway } from './harness.js';
import { connectClient } from './official-client.js';
import { expectToolError, sleep, toolsOf, type CallTool, type ToolAnswer } from './tool-answers.js';

// Source documents end to end, as `quarry start` runs them: a generated 50-page PDF goes in
// through the official MCP client (import_document, base64) and through the HTTP upload; a
// sentence of page 37 is found by search_sources with `page: 37` and a url to that page, which
// fetch reads; the original comes back byte for byte (get_artifact's embedded resource, and
// GET /documents/{id}/original); a password-protected PDF is refused by name and nothing is
// stored; another org sees none of it.

const UPLOAD_LIMIT = 1024 * 1024;
let gateway: Awaited<ReturnType<typeof startTestGateway>>;
let clientA: Client;
let clientB: Client;
let a: { call: CallTool; ok: CallTool };
let b: { call: CallTool; ok: CallTool };
let tokenB = '';
let pdf: Buffer;
let documentId = '';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Polls search_sources until `until` holds (indexing is asynchronous), at most 15 s. */
async function searchUntil(
  tools: { ok: CallTool },
  args: Record<string, unknown>,
  until: (answer: ToolAnswer) => boolean,
): Promise<ToolAnswer> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await tools.ok('search_sources', args);
    if (until(answer) || Date.now() > deadline) return answer;
    await sleep(100);
  }
}

const upload = (token: string | undefined, name: string, body: Buffer) =>
  fetch(`${gateway.base}/documents?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/pdf', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });

const download = (token: string, id: string) =>
  fetch(`${gateway.base}/documents/${id}/original`, { headers: { authorization: `Bearer ${token}` } });

beforeAll(async () => {
  gateway = await startTestGateway({ QUARRY_UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT) });
  clientA = await connectClient(gateway.url, gateway.token, 'modern');
  await gateway.admin.createOrg({ slug: 'rival', name: 'Rival Labs' });
  await gateway.admin.addUser({ email: 'eve@rival.test', orgSlug: 'rival', name: 'Eve' });
  tokenB = (await gateway.admin.createToken({ orgSlug: 'rival', email: 'eve@rival.test' })).token;
  clientB = await connectClient(gateway.url, tokenB, 'legacy');
  a = toolsOf(clientA);
  b = toolsOf(clientB);
  pdf = await pagedPdf(50);
}, 60_000);
afterAll(async () => {
  await clientA?.close();
  await clientB?.close();
  await gateway?.close();
});

describe('a 50-page PDF through import_document', () => {
  it('is stored with its pages and SHA-256, and the same bytes again are the same document', async () => {
    const answer = await a.ok('import_document', { data: pdf.toString('base64'), fileName: 'report.pdf' });
    expect(answer.data).toMatchObject({
      duplicate: false,
      title: 'A report of 50 pages',
      document: { format: 'pdf', unitKind: 'page', unitCount: 50, sha256: sha256(pdf), sizeBytes: pdf.length },
    });
    documentId = answer.data.id;
    const again = await a.ok('import_document', { data: pdf.toString('base64'), fileName: 'again.pdf' });
    expect(again.data).toMatchObject({ id: documentId, duplicate: true });
  });

  it('is found by a sentence of page 37, with page 37, a snippet holding it and a url to the page', async () => {
    const query = 'harbour 37 shipped 407 crates of tin';
    const found = await searchUntil(a, { query }, (r) =>
      r.data.results.some((x: { id: string }) => x.id === documentId),
    );
    const hit = found.data.results.find((x: { id: string }) => x.id === documentId);
    expect(hit).toMatchObject({ page: 37, url: `quarry://artifacts/${documentId}#page=37` });
    expect(hit.textSnippet).toContain('shipped 407 crates');
    const chatgpt = await a.ok('search', { query });
    expect(chatgpt.data.results[0]).toMatchObject({ id: documentId, url: `quarry://artifacts/${documentId}#page=37` });
    const page = await a.ok('fetch', { id: hit.url });
    expect(page.data.text).toContain(pageSentence(37));
    expect(page.data.text).not.toContain(pageSentence(36));
    expect(page.data.metadata).toMatchObject({ pages: '37', page_count: '50', sha256: sha256(pdf) });
  });

  it('reads a page range, and gives the original back byte for byte as an embedded resource', async () => {
    const range = await a.ok('get_artifact', { id: documentId, pages: '36-37' });
    expect(range.data.units.map((u: { number: number }) => u.number)).toEqual([36, 37]);
    expect(range.data.contentText).toContain(pageSentence(36));
    const result = await clientA.callTool({ name: 'get_artifact', arguments: { id: documentId, original: true } });
    const embedded = result.content.find((c) => c.type === 'resource');
    expect(embedded?.type === 'resource' && 'blob' in embedded.resource && embedded.resource.mimeType).toBe(
      'application/pdf',
    );
    const blob = embedded?.type === 'resource' && 'blob' in embedded.resource ? embedded.resource.blob : '';
    expect(Buffer.from(blob, 'base64').equals(pdf)).toBe(true);
  });

  it('refuses a password-protected PDF by name, stores nothing, and keeps serving', async () => {
    const before = (await a.ok('list_artifacts', {})).data.artifacts.length;
    const refused = await a.call('import_document', {
      data: (await passwordProtectedPdf()).toString('base64'),
      fileName: 'secret.pdf',
    });
    expectToolError(refused, 'DOCUMENT_ENCRYPTED', /secret\.pdf/);
    expect((await a.ok('list_artifacts', {})).data.artifacts.length).toBe(before);
    expect((await a.ok('ping', {})).isError).toBe(false);
  });

  it('is invisible to another org: not read, not downloaded, not found', async () => {
    expectToolError(await b.call('get_artifact', { id: documentId, original: true }), 'ARTIFACT_NOT_FOUND');
    expectToolError(await b.call('fetch', { id: `quarry://artifacts/${documentId}#page=37` }), 'ITEM_NOT_FOUND');
    expect((await download(tokenB, documentId)).status).toBe(404);
    const search = await b.ok('search_sources', { query: 'harbour 37 shipped 407 crates of tin' });
    expect(search.data.results).toEqual([]);
  });
});

describe('the HTTP upload', () => {
  it('imports a file streamed in, answering the id a tool call takes, and downloads the original byte for byte', async () => {
    const larger = await pagedPdf(60, 'An uploaded report');
    const response = await upload(gateway.token, 'uploaded.pdf', larger);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { id: string; duplicate: boolean; document: { sha256: string } };
    expect(answer).toMatchObject({ duplicate: false, document: { sha256: sha256(larger) } });
    const read = await a.ok('get_artifact', { id: answer.id, pages: '60' });
    expect(read.data.contentText).toContain(pageSentence(60));
    const original = await download(gateway.token, answer.id);
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toBe('application/pdf');
    expect(original.headers.get('x-content-sha256')).toBe(sha256(larger));
    expect(Buffer.from(await original.arrayBuffer()).equals(larger)).toBe(true);
  });

  it('refuses a file over the limit (413), a caller without a token (401), and bad bytes by name (422)', async () => {
    expect((await upload(gateway.token, 'huge.pdf', Buffer.alloc(UPLOAD_LIMIT + 1, 32))).status).toBe(413);
    // Streamed without a length: refused once the bytes read pass the limit.
    const chunk = Buffer.alloc(64 * 1024, 32);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > UPLOAD_LIMIT) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const streamed = await fetch(`${gateway.base}/documents?name=stream.pdf`, {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', authorization: `Bearer ${gateway.token}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await upload(undefined, 'a.pdf', pdf)).status).toBe(401);
    const bad = await upload(gateway.token, 'secret.pdf', await passwordProtectedPdf());
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ error: { code: 'DOCUMENT_ENCRYPTED' } });
  });
});
