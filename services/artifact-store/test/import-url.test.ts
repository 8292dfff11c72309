import { createHash, randomUUID } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { targetPolicy } from '../src/core/url-targets.js';
import { systemResolver, type Resolver } from '../src/web/guarded-agent.js';
import { as, startTestStore, type TestStore } from './support.js';
import { startWebServer, type TestWebServer } from './web-server.js';

// import_url over gRPC against real PostgreSQL, the real converter and a real HTTP server on
// 127.0.0.1. `open` allows that one address (QUARRY_IMPORT_URL_ALLOW=127.0.0.1) and nothing else
// that is not public; `closed` has the defaults. Host names go through a resolver the test
// controls (as a DNS server would answer), so DNS rebinding is a resolver that changes its answer.

const LIMIT_BYTES = 1024 * 1024;
const TIMEOUT_MS = 1500;
let web: TestWebServer;
let open: TestStore;
let closed: TestStore;
const orgA = randomUUID();
const orgB = randomUUID();
const lookups: string[] = [];

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
let rebindAnswers = 0;
const resolver: Resolver = async (hostname) => {
  lookups.push(hostname);
  if (hostname === 'pinned.test') return [v4('127.0.0.1')];
  if (hostname === 'nowhere.test') return [];
  if (hostname === 'private.test') return [v4('192.168.1.7')];
  if (hostname === 'mixed.test') return [v4('93.184.215.14'), v4('127.0.0.2')];
  // The first answer is the allowed test server, every later one an internal address.
  if (hostname === 'rebind.test') return [v4(rebindAnswers++ === 0 ? '127.0.0.1' : '10.0.0.1')];
  return systemResolver(hostname);
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function counts(store: TestStore) {
  return {
    artifacts: await store.count('artifact.research_artifacts'),
    documents: await store.count('artifact.documents'),
    events: await store.count('events.outbox'),
  };
}

const importUrl = (store: TestStore, url: string, orgId = orgA) => store.client.call('importUrl', { url }, as(orgId));

beforeAll(async () => {
  web = await startWebServer({ bigBytes: 2 * LIMIT_BYTES });
  open = await startTestStore({
    urlImports: {
      policy: targetPolicy(false, ['127.0.0.1']),
      maxBytes: LIMIT_BYTES,
      timeoutMs: TIMEOUT_MS,
      maxRedirects: 3,
      resolve: resolver,
    },
  });
  closed = await startTestStore();
}, 60_000);
afterAll(async () => {
  await open?.close();
  await closed?.close();
  await web?.close();
});

describe('import_url, fetching what it may', () => {
  let articleId = '';

  it('stores a web page after a redirect, recording where it came from', async () => {
    const url = `${web.origin}/go/article`;
    const answer = await importUrl(open, url);
    articleId = answer.id;
    const fetched = {
      requestedUrl: url,
      finalUrl: `${web.origin}/article.html`,
      httpStatus: 200,
      contentType: 'text/html; charset=utf-8',
      etag: '"ledgers-v1"',
      lastModified: 'Tue, 01 Dec 2026 10:00:00 GMT',
    };
    expect(answer).toMatchObject({
      title: 'Harbour ledgers of 1887',
      duplicate: false,
      document: { format: 'html', fileName: 'article.html', author: 'Ada Quay', sourceUrl: url, fetched },
      fetched,
    });
    expect(Math.abs(answer.fetched!.fetchedAt!.getTime() - Date.now())).toBeLessThan(60_000);

    const read = await open.client.call('getArtifact', { id: articleId }, as(orgA));
    expect(read.contentText).toContain('the schooner Petrel unloaded 412 barrels');
    expect(read.contentText).not.toContain('Home | Archive');
    expect(read.document).toMatchObject({ sourceUrl: url, fetched });
    const fetchedItem = await open.client.call('fetch', { id: articleId }, as(orgA));
    expect(fetchedItem.metadata).toMatchObject({ source_url: url, final_url: fetched.finalUrl });
  });

  it('stores a PDF by what its bytes are (served as application/octet-stream, named .bin), byte for byte', async () => {
    const answer = await importUrl(open, `${web.origin}/download/report.bin`);
    expect(answer.document).toMatchObject({
      format: 'pdf',
      mediaType: 'application/pdf',
      unitKind: 'page',
      unitCount: 3,
      sha256: sha256(web.pdf),
      sizeBytes: web.pdf.length,
    });
    expect(answer.fetched).toMatchObject({ contentType: 'application/octet-stream', httpStatus: 200 });
    const read = await open.client.call('getArtifact', { id: answer.id, original: true, pages: '2' }, as(orgA));
    expect(Buffer.from(read.original!.blob).equals(web.pdf)).toBe(true);
    expect(read.contentText).toContain('Page 2 records that harbour 2 shipped 22 crates of tin.');
  });

  it('is idempotent: the same bytes again are the same document, whatever URL they came from', async () => {
    const before = await counts(open);
    const again = await importUrl(open, `${web.origin}/article.html`);
    expect(again).toMatchObject({ id: articleId, duplicate: true });
    // The stored record is the first import's; the answer says what this fetch was.
    expect(again.document!.fetched!.requestedUrl).toBe(`${web.origin}/go/article`);
    expect(again.fetched!.requestedUrl).toBe(`${web.origin}/article.html`);
    expect(await counts(open)).toEqual(before);
  });

  it("is org-scoped: another org's import of the same page is its own document, and the first is missing to it", async () => {
    const theirs = await importUrl(open, `${web.origin}/article.html`, orgB);
    expect(theirs.duplicate).toBe(false);
    expect(theirs.id).not.toBe(articleId);
    await expect(open.client.call('getArtifact', { id: articleId }, as(orgB))).rejects.toMatchObject({
      code: 'ARTIFACT_NOT_FOUND',
    });
    await expect(open.client.call('fetch', { id: articleId }, as(orgB))).rejects.toMatchObject({
      code: 'ITEM_NOT_FOUND',
    });
    const { rows } = await sql<{ org_id: string; fetch_url: string; fetch_status: number }>`
      select org_id, fetch_url, fetch_status from artifact.documents where artifact_id = ${theirs.id}`.execute(
      open.database.admin,
    );
    expect(rows).toEqual([{ org_id: orgB, fetch_url: `${web.origin}/article.html`, fetch_status: 200 }]);
  });

  it('decodes a gzip-encoded page', async () => {
    const answer = await importUrl(open, `${web.origin}/compressed.html`);
    expect(answer).toMatchObject({ title: 'Harbour ledgers of 1888', document: { format: 'html' } });
  });

  it('connects to the address the resolver gave, and to no other (the name is resolved once, pinned)', async () => {
    lookups.length = 0;
    const answer = await importUrl(open, `http://pinned.test:${web.port}/article.html`);
    expect(answer.duplicate).toBe(true);
    expect(lookups).toEqual(['pinned.test']);
  });
});

describe('import_url, refusing what it may not', () => {
  let before: Awaited<ReturnType<typeof counts>>;
  beforeAll(async () => {
    before = await counts(open);
  });
  afterAll(async () => {
    // Nothing half-stored by any refusal above.
    expect(await counts(open)).toEqual(before);
  });

  it('refuses loopback by default, before connecting', async () => {
    const requested = web.requests.length;
    const baseline = await counts(closed);
    await expect(importUrl(closed, `${web.origin}/article.html`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/rule: loopback/),
    });
    await expect(importUrl(closed, `http://localhost:${web.port}/article.html`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/rule: loopback/),
    });
    await expect(importUrl(closed, `http://[::ffff:127.0.0.1]:${web.port}/article.html`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/rule: ipv4-mapped/),
    });
    expect(web.requests.length).toBe(requested);
    expect(await counts(closed)).toEqual(baseline);
  });

  it('re-checks every redirect: to a private address, to a metadata endpoint', async () => {
    await expect(importUrl(open, `${web.origin}/go/private`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/http:\/\/10\.0\.0\.1\/admin .*rule: private/),
    });
    await expect(importUrl(open, `${web.origin}/go/metadata`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/rule: metadata/),
    });
  });

  it('checks every address a name resolves to, and each new connection again (DNS rebinding)', async () => {
    await expect(importUrl(open, `http://private.test:${web.port}/article.html`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/private\.test is 192\.168\.1\.7.*rule: private|rule: private.*192\.168\.1\.7/),
    });
    await expect(importUrl(open, `http://mixed.test:${web.port}/article.html`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/127\.0\.0\.2/),
    });
    // The first connection goes to the allowed server, which redirects to the same name on a new
    // connection; the name now resolves to an internal address, which is refused.
    lookups.length = 0;
    const requested = web.requests.length;
    await expect(importUrl(open, `http://rebind.test:${web.port}/go/loopback-name`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/10\.0\.0\.1/),
    });
    expect(lookups).toEqual(['rebind.test', 'rebind.test']);
    expect(web.requests.slice(requested)).toEqual(['/go/loopback-name']);
  });

  it('takes only http(s) URLs without credentials', async () => {
    await expect(importUrl(open, 'file:///etc/passwd')).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/rule: scheme/),
    });
    await expect(importUrl(open, `http://user:secret@127.0.0.1:${web.port}/article.html`)).rejects.toMatchObject({
      code: 'URL_BLOCKED',
      message: expect.stringMatching(/rule: credentials/),
    });
  });

  it('stops after the redirect limit', async () => {
    const requested = web.requests.length;
    await expect(importUrl(open, `${web.origin}/loop`)).rejects.toMatchObject({ code: 'URL_TOO_MANY_REDIRECTS' });
    expect(web.requests.slice(requested)).toEqual(['/loop', '/loop', '/loop', '/loop']);
  });

  it('aborts a body over the size limit, declared or streamed', async () => {
    await expect(importUrl(open, `${web.origin}/big`)).rejects.toMatchObject({ code: 'URL_TOO_LARGE' });
    await expect(importUrl(open, `${web.origin}/big-streamed`)).rejects.toMatchObject({ code: 'URL_TOO_LARGE' });
  });

  it('gives up at the time limit', async () => {
    const started = Date.now();
    await expect(importUrl(open, `${web.origin}/slow`)).rejects.toMatchObject({ code: 'URL_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 5000);
  });

  it('names a host that does not resolve, or a server that does not answer', async () => {
    await expect(importUrl(open, `http://nowhere.test:${web.port}/`)).rejects.toMatchObject({
      code: 'URL_UNREACHABLE',
      message: expect.stringMatching(/ENOTFOUND/),
    });
    // Port 9 (discard) on the allowed address: nothing listens there.
    await expect(importUrl(open, 'http://127.0.0.1:9/')).rejects.toMatchObject({
      code: 'URL_UNREACHABLE',
      message: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it('names an HTTP error status', async () => {
    await expect(importUrl(open, `${web.origin}/gone`)).rejects.toMatchObject({
      code: 'URL_HTTP_ERROR',
      message: expect.stringMatching(/HTTP 404/),
    });
  });

  it('reads the format from the bytes: an image served as text/html is unsupported content', async () => {
    await expect(importUrl(open, `${web.origin}/picture`)).rejects.toMatchObject({
      code: 'URL_UNSUPPORTED_CONTENT',
      message: expect.stringMatching(/PNG/),
    });
  });

  it('refuses a step without its plan before fetching anything', async () => {
    const requested = web.requests.length;
    await expect(
      open.client.call('importUrl', { url: `${web.origin}/article.html`, stepId: randomUUID() }, as(orgA)),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(web.requests.length).toBe(requested);
  });
});
