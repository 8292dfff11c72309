import { describe, expect, it } from '@jest/globals';
import { convertDocument } from '../src/index.js';

const paragraph = (n: number) =>
  `<p>Paragraph ${n} of the study explains, at some length, how the tidal measurements were taken along the coast and why the readings of station ${n} differ from the model by a few centimetres.</p>`;

const ARTICLE = `<!DOCTYPE html>
<html lang="en-GB">
<head>
  <meta charset="utf-8">
  <title>Tides of the North Sea | Coastal Review</title>
  <meta name="author" content="Ada Lovelace">
  <meta property="article:published_time" content="2024-02-29T08:30:00+01:00">
  <meta property="og:site_name" content="Coastal Review">
  <link rel="canonical" href="https://example.org/articles/tides">
  <link rel="stylesheet" href="/site.css">
  <style>.secret-style { color: red } body::after { content: "STYLE-LEAK" }</style>
  <script>window.SCRIPT_LEAK = "SCRIPT-LEAK";</script>
</head>
<body>
  <nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/subscribe">Subscribe</a></nav>
  <article>
    <h1>Tides of the North Sea</h1>
    ${[1, 2, 3].map(paragraph).join('\n')}
    <h2>Measurements</h2>
    ${[4, 5].map(paragraph).join('\n')}
    <table>
      <caption>Table 1. Mean tidal range</caption>
      <thead><tr><th>Station</th><th>Range (m)</th></tr></thead>
      <tbody><tr><td>Harwich</td><td>3.6</td></tr><tr><td>Dover</td><td>5.9</td></tr></tbody>
    </table>
    <script>document.write("INLINE-SCRIPT-LEAK")</script>
    <noscript>NOSCRIPT-LEAK</noscript>
    <p>An inline chart: <img alt="tidal chart" src="data:image/png;base64,${'A'.repeat(4000)}"></p>
    ${[6, 7].map(paragraph).join('\n')}
  </article>
  <footer>Copyright Coastal Review. All rights reserved.</footer>
</body>
</html>`;

describe('HTML', () => {
  it('keeps the main content as markdown with the page’s title, author, date, language and canonical URL', async () => {
    const doc = await convertDocument({ bytes: new TextEncoder().encode(ARTICLE), fileName: 'tides.html' });
    expect(doc).toMatchObject({
      format: 'html',
      mediaType: 'text/html',
      title: 'Tides of the North Sea',
      author: 'Ada Lovelace',
      publishedAt: '2024-02-29T07:30:00.000Z',
      language: 'en-GB',
      canonicalUrl: 'https://example.org/articles/tides',
      warnings: [],
    });
    expect(doc.metadata.siteName).toBe('Coastal Review');
    expect(doc.text).toContain('Paragraph 7 of the study explains');
    expect(doc.text).toContain('## Measurements');
    expect(doc.text).toContain('| Harwich | 3.6 |');
    expect(doc.text).toContain('![tidal chart]');
    for (const leak of [
      'SCRIPT-LEAK',
      'STYLE-LEAK',
      'secret-style',
      'NOSCRIPT-LEAK',
      'About us',
      'All rights reserved',
      'base64',
    ]) {
      expect(doc.text).not.toContain(leak);
    }
    expect(doc.units.map((u) => doc.text.slice(u.start, u.end).split('\n')[0])).toEqual([
      '# Tides of the North Sea',
      '## Measurements',
    ]);
    expect(doc.tables).toEqual([
      {
        unit: 2,
        caption: 'Table 1. Mean tidal range',
        rows: [
          ['Station', 'Range (m)'],
          ['Harwich', '3.6'],
          ['Dover', '5.9'],
        ],
      },
    ]);
  });

  it('is sniffed from the markup whatever the name, and reads the charset the page declares', async () => {
    const latin = `<html><head><meta charset="iso-8859-7"><title>x</title></head><body><p>${'Καλημέρα κόσμε. '.repeat(20)}</p></body></html>`;
    const bytes = Uint8Array.from(latin, (c) => {
      const code = c.charCodeAt(0);
      return code < 128 ? code : code - 0x2d0;
    });
    const doc = await convertDocument({ bytes, fileName: 'page.txt' });
    expect(doc.format).toBe('html');
    expect(doc.text).toContain('Καλημέρα κόσμε.');
  });

  it('keeps a short page whole, and says so when a page has no content at all', async () => {
    const doc = await convertDocument({
      bytes: new TextEncoder().encode('<html><body><div>Just a line.</div><script>x()</script></body></html>'),
    });
    expect(doc.text).toContain('Just a line.');
    expect(doc.text).not.toContain('x()');
    const empty = await convertDocument({
      bytes: new TextEncoder().encode(
        '<html><head><title>Nothing here</title></head><body><script>y()</script></body></html>',
      ),
    });
    expect(empty).toMatchObject({ title: 'Nothing here', text: '# Nothing here' });
    expect(empty.warnings).toEqual(['no main content was found; the whole page was kept']);
  });
});
