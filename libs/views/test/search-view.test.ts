import { describe, expect, it } from '@jest/globals';
import { renderSearchView, safeHref, searchViewFrom } from '@quarry/views';
import { HOSTILE, searchSources } from './fixtures.js';
import { elementsOf, expectInert } from './inert.js';

describe('the search-results view', () => {
  it('explains each hit by the rank each leg gave it', () => {
    const html = renderSearchView(searchViewFrom(searchSources));
    const text = html.replace(/<[^>]+>/g, ' ');
    expect(text).toContain('keyword #1 · semantic #3 · fused score 0.0328');
    expect(text).toContain('not in keyword · semantic #2');
    expect(text).toContain('hybrid search');
    expect(text).toContain('keyword matched 5, semantic 7');
    expect(elementsOf(html).filter((e) => e.name === 'li')).toHaveLength(2);
  });

  it('links hits to the permalinks it is given, else to their own web url only', () => {
    const linked = searchViewFrom(searchSources, { artifact: (id) => `/app/artifacts/${id}` });
    const hrefs = (html: string) => elementsOf(html).flatMap((e) => (e.attribs.href ? [e.attribs.href] : []));
    expect(hrefs(renderSearchView(linked))).toEqual(['/app/artifacts/a1', 'https://quarry.example/app/extractions/x1']);
    expect(hrefs(renderSearchView(searchViewFrom(searchSources)))).toEqual([
      'https://quarry.example/app/extractions/x1',
    ]);
  });

  it("shows the page of a document a hit is on, and links it to that page of the artifact's page", () => {
    const paged = {
      ...searchSources,
      results: [{ ...searchSources.results[0]!, page: 37, url: 'quarry://artifacts/a1#page=37' }],
    };
    const html = renderSearchView(searchViewFrom(paged, { artifact: (id) => `/app/artifacts/${id}` }));
    expect(html.replace(/<[^>]+>/g, ' ')).toContain('page 37');
    expect(elementsOf(html).flatMap((e) => (e.attribs.href ? [e.attribs.href] : []))).toEqual([
      '/app/artifacts/a1?page=37',
    ]);
    expect(renderSearchView(searchViewFrom(searchSources))).not.toContain('q-page');
  });

  it('renders hostile titles, snippets, tags and queries as text', () => {
    const html = renderSearchView(searchViewFrom(searchSources));
    expectInert(html);
    expect(html).toContain('A passage &lt;script&gt;');
    expect(html).toContain('&quot;&gt;&lt;svg onload=&quot;window.__pwned=1&quot;&gt;');
  });

  it("shows the search tool's results, which carry no per-leg explanation", () => {
    const html = renderSearchView(
      searchViewFrom({ results: [{ id: 'a', title: HOSTILE.script, url: 'https://q.example/app/artifacts/a' }] }),
    );
    expectInert(html);
    expect(html).not.toContain('q-legs');
    expect(renderSearchView(searchViewFrom({ results: [] }))).toContain('Nothing found.');
  });
});

describe('a link', () => {
  it('is kept only for web and same-origin addresses', () => {
    for (const ok of ['https://a.example/x?y=1&z=2', 'http://a.example', '/app/plans/1'])
      expect(safeHref(ok)).toBeDefined();
    expect(safeHref('https://a.example/?a=1&b="x"')).toBe('https://a.example/?a=1&amp;b=&quot;x&quot;');
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      '\u0000javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'vbscript:x',
      '//evil.example/x',
      '/\\evil.example',
      'quarry://artifacts/a1',
      'https\n://x',
      '',
      undefined,
    ])
      expect(safeHref(bad)).toBeUndefined();
  });
});
