import { describe, expect, it } from '@jest/globals';
import { convertDocument, DEFAULT_CONVERSION_LIMITS, DocumentError } from '../src/index.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('plain text and markdown', () => {
  it('reads plain text as one section with its span', async () => {
    const doc = await convertDocument({ bytes: utf8('Hello  \r\nworld\r\n\r\n\r\nagain\n'), fileName: 'a.txt' });
    expect(doc).toMatchObject({ format: 'text', mediaType: 'text/plain', text: 'Hello\nworld\n\nagain', warnings: [] });
    expect(doc.units).toEqual([{ kind: 'section', number: 1, start: 0, end: doc.text.length }]);
  });

  it('cuts markdown into sections at its top headings and takes the title from the first', async () => {
    const source =
      '# The title\n\nIntro.\n\n```\n# not a heading\n```\n\n## Methods\n\nWe did it.\n\n### Detail\n\nMore.\n';
    const doc = await convertDocument({ bytes: utf8(source), fileName: 'notes.md' });
    expect(doc.format).toBe('markdown');
    expect(doc.mediaType).toBe('text/markdown');
    expect(doc.title).toBe('The title');
    expect(doc.units.map((u) => doc.text.slice(u.start, u.end))).toEqual([
      '# The title\n\nIntro.\n\n```\n# not a heading\n```',
      '## Methods\n\nWe did it.\n\n### Detail\n\nMore.',
    ]);
  });

  it('takes markdown from a media type, and from a leading heading with no hint', async () => {
    expect((await convertDocument({ bytes: utf8('plain'), mediaType: 'text/markdown' })).format).toBe('markdown');
    expect((await convertDocument({ bytes: utf8('## Heading\n\ntext') })).format).toBe('markdown');
  });

  it('reads a byte-order mark and falls back to Windows-1252 with a warning', async () => {
    const bom = await convertDocument({ bytes: Uint8Array.of(0xff, 0xfe, 0x68, 0, 0xe9, 0) });
    expect(bom.text).toBe('hé');
    const latin = await convertDocument({ bytes: Uint8Array.of(0x63, 0x61, 0x66, 0xe9) });
    expect(latin.text).toBe('café');
    expect(latin.warnings).toEqual(['the text is not UTF-8; it was read as Windows-1252']);
  });

  it('trusts the bytes over the name: HTML named .txt is HTML, binary named .txt is refused', async () => {
    await expect(
      convertDocument({ bytes: Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0, 0), fileName: 'a.txt' }),
    ).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: 'the document is a PNG image' });
    await expect(convertDocument({ bytes: Uint8Array.of(1, 0, 2, 0, 3, 0, 4) })).rejects.toBeInstanceOf(DocumentError);
    await expect(convertDocument({ bytes: new Uint8Array(0) })).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
  });

  it('refuses input over the size limit before converting', async () => {
    const tooBig = new Uint8Array(DEFAULT_CONVERSION_LIMITS.maxBytes + 1);
    await expect(convertDocument({ bytes: tooBig })).rejects.toMatchObject({ code: 'TOO_LARGE' });
    await expect(convertDocument({ bytes: utf8('x'.repeat(100)) }, { limits: { maxBytes: 10 } })).rejects.toMatchObject(
      {
        code: 'TOO_LARGE',
      },
    );
  });
});
