import { describe, expect, it } from '@jest/globals';
import { strToU8 } from 'fflate';
import { convertDocument, type ConvertedDocument } from '../src/index.js';
import { docx, docxParts, pptx, xlsx, zip } from './fixtures/office.js';

const unitTexts = (doc: ConvertedDocument) => doc.units.map((u) => doc.text.slice(u.start, u.end));

describe('DOCX', () => {
  it('reads headings, paragraphs, tables and images into sections, with the core properties', async () => {
    const bytes = docx([
      { heading: 1, text: 'Annual report' },
      { paragraph: 'The year in brief.' },
      { heading: 2, text: 'Results' },
      { paragraph: 'Revenue grew by a third.' },
      {
        table: [
          ['Quarter', 'Revenue'],
          ['Q1', '10'],
          ['Q2', '12'],
        ],
      },
      { image: { width: 150, height: 100, alt: 'Revenue chart' } },
      { paragraph: 'Figure 1. Revenue by quarter.' },
      { heading: 2, text: 'Outlook' },
      { paragraph: 'More of the same.' },
    ]);
    const doc = await convertDocument({ bytes, fileName: 'report.docx' });
    expect(doc).toMatchObject({
      format: 'docx',
      mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      title: 'A report',
      author: 'Grace Hopper',
      publishedAt: '2023-11-02T09:15:00.000Z',
      language: 'en-US',
      warnings: [],
    });
    expect(unitTexts(doc).map((t) => t.split('\n')[0])).toEqual(['# Annual report', '## Results', '## Outlook']);
    expect(unitTexts(doc)[1]).toMatch(/^\| Quarter +\| Revenue +\|\n\| -+ \| -+ \|\n\| Q1 +\| 10 +\|$/m);
    expect(doc.tables).toEqual([
      {
        unit: 2,
        rows: [
          ['Quarter', 'Revenue'],
          ['Q1', '10'],
          ['Q2', '12'],
        ],
      },
    ]);
    expect(doc.figures).toHaveLength(1);
    expect(doc.figures[0]).toMatchObject({
      unit: 2,
      caption: 'Figure 1. Revenue by quarter.',
      mediaType: 'image/png',
      width: 150,
      height: 100,
    });
  });
});

describe('PPTX', () => {
  it('reads slide by slide in presentation order, with titles, tables, notes and pictures', async () => {
    const bytes = pptx([
      {
        title: 'Why tides matter',
        body: ['Coasts flood', 'Ports plan around them'],
        notes: 'Open with the storm of 1953.',
      },
      {
        title: 'Measurements',
        table: [
          ['Station', 'Range'],
          ['Dover', '5.9'],
        ],
      },
      { title: 'The chart', body: ['Figure 2. Range by station'], image: { width: 200, height: 120 } },
    ]);
    const doc = await convertDocument({ bytes, fileName: 'deck.pptx' });
    expect(doc).toMatchObject({ format: 'pptx', title: 'A deck', author: 'Alan Turing', warnings: [] });
    expect(doc.metadata.slides).toBe('3');
    expect(doc.units.map((u) => [u.kind, u.number])).toEqual([
      ['slide', 1],
      ['slide', 2],
      ['slide', 3],
    ]);
    expect(unitTexts(doc)).toEqual([
      '## Why tides matter\n\nCoasts flood\nPorts plan around them\n\nNotes: Open with the storm of 1953.',
      '## Measurements\n\nStation | Range\nDover | 5.9',
      '## The chart\n\nFigure 2. Range by station',
    ]);
    expect(doc.tables).toEqual([
      {
        unit: 2,
        rows: [
          ['Station', 'Range'],
          ['Dover', '5.9'],
        ],
      },
    ]);
    expect(doc.figures).toHaveLength(1);
    expect(doc.figures[0]).toMatchObject({ unit: 3, caption: 'Figure 2. Range by station', width: 200, height: 120 });
  });

  it('refuses more slides than the limit with TOO_MANY_UNITS', async () => {
    const bytes = pptx(Array.from({ length: 6 }, (_, i) => ({ title: `Slide ${i + 1}` })));
    await expect(convertDocument({ bytes }, { limits: { maxUnits: 5 } })).rejects.toMatchObject({
      code: 'TOO_MANY_UNITS',
      message: 'the presentation has 6 slides; at most 5 are converted',
    });
  });
});

describe('XLSX', () => {
  it('reads sheet by sheet, each as a table of its cells', async () => {
    const bytes = xlsx([
      {
        name: 'Stations',
        rows: [
          ['Station', 'Range', 'Tidal'],
          ['Dover', 5.9, true],
          ['Harwich', null, false],
        ],
      },
      { name: 'Empty', rows: [] },
      { name: 'Notes', rows: [['Measured | in metres']] },
    ]);
    const doc = await convertDocument({ bytes, fileName: 'data.xlsx' });
    expect(doc).toMatchObject({ format: 'xlsx', title: 'Measurements', author: 'Katherine Johnson' });
    expect(unitTexts(doc)).toEqual([
      '## Stations\n\n| Station | Range | Tidal |\n| --- | --- | --- |\n| Dover | 5.9 | TRUE |\n| Harwich |  | FALSE |',
      '## Empty',
      '## Notes\n\n| Measured \\| in metres |\n| --- |',
    ]);
    expect(doc.units.map((u) => u.kind)).toEqual(['sheet', 'sheet', 'sheet']);
    expect(doc.tables).toEqual([
      {
        unit: 1,
        caption: 'Stations',
        rows: [
          ['Station', 'Range', 'Tidal'],
          ['Dover', '5.9', 'TRUE'],
          ['Harwich', '', 'FALSE'],
        ],
      },
      { unit: 3, caption: 'Notes', rows: [['Measured | in metres']] },
    ]);
  });
});

describe('Office files that are not what they claim, or are hostile', () => {
  it('sniffs the format from the parts, not the name', async () => {
    const bytes = pptx([{ title: 'Only slide' }]);
    expect((await convertDocument({ bytes, fileName: 'misnamed.docx', mediaType: 'application/pdf' })).format).toBe(
      'pptx',
    );
  });

  it('refuses a zip bomb from its declared sizes before inflating: an entry inflating 1000-fold', async () => {
    const parts = docxParts([{ paragraph: 'Hello' }]);
    parts['word/media/padding.bin'] = new Uint8Array(64 * 1024 * 1024);
    const bomb = zip(parts, 9);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const started = Date.now();
    await expect(convertDocument({ bytes: bomb })).rejects.toMatchObject({ code: 'ARCHIVE_BOMB' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses an archive whose declared total is over the limit', async () => {
    await expect(
      convertDocument({ bytes: docx([{ paragraph: 'x'.repeat(5000) }]) }, { limits: { maxUncompressedBytes: 4096 } }),
    ).rejects.toMatchObject({
      code: 'ARCHIVE_BOMB',
      message: expect.stringMatching(/^the archive inflates to \d+ bytes; at most 4096 bytes are read$/),
    });
  });

  it('gains nothing by declaring smaller sizes than it inflates to: the part is cut at its declared size', async () => {
    const parts = docxParts([{ paragraph: 'y'.repeat(200_000) }]);
    const bytes = zip(parts, 9);
    // Rewrite document.xml's declared uncompressed size (central directory, offset 24) to 100 bytes.
    const name = strToU8('word/document.xml');
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    let patched = 0;
    for (let i = 0; i + 46 < bytes.length; i++) {
      if (view.getUint32(i, true) !== 0x02014b50) continue;
      const nameLength = view.getUint16(i + 28, true);
      if (nameLength === name.length && name.every((b, k) => bytes[i + 46 + k] === b)) {
        view.setUint32(i + 24, 100, true);
        patched++;
      }
    }
    expect(patched).toBe(1);
    await expect(convertDocument({ bytes })).rejects.toMatchObject({ code: 'CORRUPT' });
  });

  it('refuses a zip that is not an Office file, and a broken zip', async () => {
    await expect(convertDocument({ bytes: zip({ 'notes.txt': 'hello' }), fileName: 'a.docx' })).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      message: 'the document is a zip archive, not a Word, PowerPoint or Excel file',
    });
    const broken = docx([{ paragraph: 'Hello' }]).subarray(0, 300);
    await expect(convertDocument({ bytes: broken })).rejects.toMatchObject({ code: 'CORRUPT' });
  });

  it('names a password-protected Office file ENCRYPTED and a legacy one UNSUPPORTED_FORMAT', async () => {
    const cfb = (stream: string) => {
      const bytes = new Uint8Array(1024);
      bytes.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
      bytes.set(Uint8Array.from([...stream].flatMap((c) => [c.charCodeAt(0), 0])), 512);
      return bytes;
    };
    await expect(convertDocument({ bytes: cfb('EncryptedPackage'), fileName: 'x.docx' })).rejects.toMatchObject({
      code: 'ENCRYPTED',
    });
    await expect(convertDocument({ bytes: cfb('WordDocument'), fileName: 'x.doc' })).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
    });
  });
});
