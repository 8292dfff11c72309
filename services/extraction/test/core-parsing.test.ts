import { describe, expect, it } from '@jest/globals';
import { findDates, findNumbers, parseDate, parseNumber } from '../src/index.js';

describe('findNumbers', () => {
  it.each([
    ['1200', 1200],
    ['1,200', 1200],
    ['1,200.50', 1200.5],
    ['1.200,50', 1200.5],
    ['1.200.000', 1200000],
    ["1'200", 1200],
    ['1\u202f200', 1200],
    ['3.50', 3.5],
    ['3,5', 3.5],
    ['1.200', 1.2],
    ['-4.5', -4.5],
    ['12k', 12000],
    ['3 million', 3000000],
    ['2.5bn', 2.5e9],
  ])('%s → %d', (text, value) => {
    expect(parseNumber(text)?.value).toBe(value);
  });

  it('finds numbers with their offsets, units after them, percents', () => {
    const found = findNumbers('Weight: 12.5 kg, discount 45%, total $1,200.');
    expect(found.map((n) => [n.value, n.percent, n.start, n.end])).toEqual([
      [12.5, false, 8, 12],
      [45, true, 26, 29],
      [1200, false, 38, 43],
    ]);
  });

  it('ignores digits that belong to dates, codes and words', () => {
    expect(findNumbers('2024-03-05, INV-2024-001, 555-1234, A4 paper, 05/03/2024, v2, 3.8.0')).toEqual([]);
    expect(findNumbers('Clarity: 4/5').map((n) => n.value)).toEqual([4]);
  });
});

describe('findDates / parseDate', () => {
  it.each([
    ['2024-03-05', '2024-03-05'],
    ['2024/3/5', '2024-03-05'],
    ['March 5, 2024', '2024-03-05'],
    ['Mar. 5th 2024', '2024-03-05'],
    ['Tuesday, March 5, 2024', '2024-03-05'],
    ['5 March 2024', '2024-03-05'],
    ['5th of March, 2024', '2024-03-05'],
    ['05.03.2024', '2024-03-05'],
    ['03/25/2024', '2024-03-25'],
    ['25/03/24', '2024-03-25'],
    ['2024-03-05T10:00:00Z', '2024-03-05'],
  ])('%s → %s', (text, iso) => {
    expect(parseDate(text)?.iso).toBe(iso);
  });

  it('reads an ambiguous numeric date day first and keeps the month-first reading', () => {
    expect(parseDate('05/03/2024')).toEqual({
      iso: '2024-03-05',
      alternative: '2024-05-03',
      start: 0,
      end: 10,
      ambiguous: true,
      monthFirst: false,
    });
    expect(parseDate('03/25/2024')).toMatchObject({ iso: '2024-03-25', ambiguous: false, monthFirst: true });
  });

  it('rejects impossible dates and strings that are more than a date', () => {
    expect(parseDate('2024-02-30')).toBeUndefined();
    expect(parseDate('31/31/2024')).toBeUndefined();
    expect(parseDate('due 2024-03-05 or later')).toBeUndefined();
  });

  it('reads a range of days as two dates', () => {
    expect(findDates('When: September 18–20, 2024').map((d) => [d.iso, d.rangePart])).toEqual([
      ['2024-09-18', 'start'],
      ['2024-09-20', 'end'],
    ]);
    expect(findDates('18-20 Sept 2024').map((d) => d.iso)).toEqual(['2024-09-18', '2024-09-20']);
  });

  it('finds every date in a text with its span', () => {
    const text = 'Issued 2024-03-05; due April 4, 2024 (or 4 May 2024).';
    expect(findDates(text).map((d) => [d.iso, text.slice(d.start, d.end)])).toEqual([
      ['2024-03-05', '2024-03-05'],
      ['2024-04-04', 'April 4, 2024'],
      ['2024-05-04', '4 May 2024'],
    ]);
  });
});
