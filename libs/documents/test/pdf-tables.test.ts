import { describe, expect, it } from '@jest/globals';
import { decode } from 'fast-png';
import { pageTables } from '../src/core/pdf-tables.js';
import { convertDocument } from '../src/index.js';
import { pdfBytes } from './fixtures/pdfs.js';

const ROWS = [
  ['Harbour', 'Crates', 'Tin (t)'],
  ['North', '120', '3.5'],
  ['South', '95', '2.25'],
  ['East', '40', '1.0'],
];

const run = (text: string, x: number, y: number, size = 10) => ({
  text,
  x,
  y,
  width: text.length * size * 0.5,
  height: size,
  endsLine: false,
});

describe('PDF tables', () => {
  it('finds a table drawn cell by cell, with its "Table N" caption, page and box; its text stays in the page', async () => {
    const bytes = await pdfBytes({
      pages: [
        { lines: ['An opening page.'] },
        { lines: ['Yields.'], table: { caption: 'Table 2: Crates and tin by harbour', rows: ROWS } },
      ],
    });
    const doc = await convertDocument({ bytes, fileName: 'yields.pdf' });
    expect(doc.tables).toHaveLength(1);
    const [table] = doc.tables;
    expect(table).toMatchObject({ unit: 2, caption: 'Table 2: Crates and tin by harbour', rows: ROWS });
    expect(table!.box!.left).toBeCloseTo(56, 0);
    expect(table!.box!.top).toBeGreaterThan(table!.box!.bottom);
    const page2 = doc.units[1]!;
    expect(doc.text.slice(page2.start, page2.end)).toContain('South 95 2.25');
  });

  it('does not take two columns of running text, two aligned rows, or a page of prose for a table', async () => {
    const prose = Array.from({ length: 12 }, (_, i) => `Line ${i} of a column of running text that goes on and on.`);
    const bytes = await pdfBytes({
      pages: [
        { columns: [prose, prose.map((l) => l.replace('Line', 'Row'))] },
        { lines: ['Just two rows.'], table: { rows: ROWS.slice(0, 2) } },
        { lines: prose },
      ],
    });
    const doc = await convertDocument({ bytes });
    expect(doc.tables).toEqual([]);
  });

  it('ends a table at a row that does not fit its columns, and keeps a caption found below it', () => {
    const runs = [
      ...ROWS.flatMap((row, r) => row.map((cell, c) => run(cell, 56 + c * 110, 700 - r * 16))),
      run('North and South together', 56, 636),
      run('Table 4. Below the rows.', 56, 620),
    ];
    const tables = pageTables(runs, 160);
    expect(tables).toEqual([
      expect.objectContaining({ rows: ROWS, caption: 'Table 4. Below the rows.', left: 56, bottom: 652, top: 710 }),
    ]);
    expect(pageTables(runs.slice(0, 9), 160)).toEqual([expect.objectContaining({ rows: ROWS.slice(0, 3) })]);
  });
});

describe('PDF figures', () => {
  it('scales an image larger than maxFigureSide down to it, and gives where it is painted', async () => {
    const bytes = await pdfBytes({
      pages: [{ lines: ['One.'], image: { width: 600, height: 300, caption: 'Figure 1. Wide.' } }],
    });
    const doc = await convertDocument({ bytes }, { limits: { maxFigureSide: 200 } });
    const [figure] = doc.figures;
    expect(figure).toMatchObject({ unit: 1, caption: 'Figure 1. Wide.', width: 200, height: 100 });
    expect(figure!.box).toEqual({ left: 100, right: 400, bottom: 545, top: 745 });
    const png = decode(figure!.bytes);
    expect([png.width, png.height]).toEqual([200, 100]);
  });
});
