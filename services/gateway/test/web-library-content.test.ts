import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectInertPage } from './web-inert.js';
import { startLibraryFixture } from './web-library-fixture.js';

// What the web app shows of stored research and how it hands it out: deliverables downloaded
// byte for byte as attachments, and hostile stored content (script, javascript: links, an onerror
// image, a hostile file name) inert on every page that shows it.

let fixture: Awaited<ReturnType<typeof startLibraryFixture>>;
beforeAll(async () => {
  fixture = await startLibraryFixture();
}, 120_000);
afterAll(async () => {
  await fixture?.gateway.close();
});

describe('stored research in the app', () => {
  it('downloads deliverables byte for byte as attachments with their stored MIME type and a safe name', async () => {
    const { ids, bytes, get, callsOf, signIn } = fixture;
    const { cookie } = await signIn('ada@acme.test');
    const docx = await get(`/app/outputs/${ids.docx}/download`, cookie);
    expect(docx.statusCode).toBe(200);
    expect(docx.rawPayload.equals(bytes.docx)).toBe(true);
    expect(docx.headers['content-type']).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    const disposition = String(docx.headers['content-disposition']);
    expect(disposition).toBe('attachment; filename="evil_X-Injected_ 1 _script_.docx"');
    expect(disposition).not.toMatch(/[\r\n<>]|\.\.\//);
    expect(docx.headers['x-content-type-options']).toBe('nosniff');
    expect(docx.headers['content-security-policy']).toContain('sandbox');

    const long = await get(`/app/outputs/${ids.long}/download`, cookie);
    expect(long.statusCode).toBe(200);
    expect(createHash('sha256').update(long.rawPayload).digest('hex')).toBe(
      createHash('sha256').update(bytes.long).digest('hex'),
    );
    expect(long.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(long.headers['content-disposition']).toBe('attachment; filename="Long brief.md"');
    // Longer than one read: the download joined the pages.
    expect(callsOf('get_research_output').filter((c) => c.request.outputId === ids.long).length).toBeGreaterThan(1);
  });

  it('renders a hostile stored artifact inert on each page that shows it', async () => {
    const { ids, get, signIn } = fixture;
    const { cookie } = await signIn('ada@acme.test');
    const artifact = await get(`/app/artifacts/${ids.artifact}`, cookie);
    expect(artifact.statusCode).toBe(200);
    expect(artifact.body).toContain('<a href="https://example.org/source" rel="noopener noreferrer nofollow">fine</a>');
    expect(artifact.body).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(artifact.body).toContain('[image: pixel]');
    const output = await get(`/app/outputs/${ids.hostileOutput}`, cookie);
    const docx = await get(`/app/outputs/${ids.docx}`, cookie);
    const plan = await get(`/app/plans/${ids.plan}`, cookie);
    const search = await get('/app/search?q=carbonate', cookie);
    expect(search.body).toContain(`href="/app/artifacts/${ids.artifact}"`);
    expect(search.body).toContain('keyword #1');
    for (const page of [artifact, output, docx, plan, search]) {
      expect(page.statusCode).toBe(200);
      expectInertPage(page.body);
      // Stored markup is text: only escaped, never a tag.
      expect(page.body).not.toMatch(/<script>|<img src=x|<iframe/i);
    }
  });
});
