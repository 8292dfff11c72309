import { describe, expect, it } from '@jest/globals';
import { QuarryError } from '@quarry/grpc';
import { retag } from '../src/core/tags.js';
import { pageText } from '../src/core/text-page.js';

// The pure rules behind the read and curate tools: pages of UTF-8 within a budget and tag
// updates (the sealed cursors are @quarry/cursors', tested there).

describe('pageText', () => {
  it('never splits a character: the pages join to the text, each within the budget', () => {
    const text = 'a😀é✓'.repeat(1000); // 1, 4, 2 and 3 bytes
    for (const budget of [4, 5, 7, 100, 4095]) {
      const parts: string[] = [];
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        const page = pageText(text, offset, budget);
        expect(page.page.returnedBytes).toBeLessThanOrEqual(budget);
        expect(Buffer.byteLength(page.text)).toBe(page.page.returnedBytes);
        expect(page.page.offset).toBe(offset);
        parts.push(page.text);
        offset = page.nextOffset;
      }
      expect(parts.join('')).toBe(text);
    }
  });

  it('gives an empty page, resuming where it started, when the budget cannot hold the next character', () => {
    expect(pageText('😀x', 0, 3)).toEqual({
      text: '',
      page: { totalBytes: 5, offset: 0, returnedBytes: 0 },
      nextOffset: 0,
    });
    expect(pageText('😀x', 0, 0).nextOffset).toBe(0);
  });

  it('ends at the end: no next page, and an offset past the end reads nothing', () => {
    expect(pageText('abc', 0, 10)).toEqual({ text: 'abc', page: { totalBytes: 3, offset: 0, returnedBytes: 3 } });
    expect(pageText('abc', 9, 10)).toEqual({ text: '', page: { totalBytes: 3, offset: 3, returnedBytes: 0 } });
    expect(pageText('', 0, 10)).toEqual({ text: '', page: { totalBytes: 0, offset: 0, returnedBytes: 0 } });
  });
});

describe('retag', () => {
  it('adds once, removes (also what it adds), keeps order, and says whether anything changed', () => {
    expect(retag(['a', 'b'], ['c', 'a'], [])).toEqual({ tags: ['a', 'b', 'c'], changed: true });
    expect(retag(['a', 'b'], ['a'], ['x'])).toEqual({ tags: ['a', 'b'], changed: false });
    expect(retag(['a', 'b'], ['c'], ['c', 'a'])).toEqual({ tags: ['b'], changed: true });
  });

  it('refuses a blank or too long tag, and more than 50 tags', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as QuarryError).code;
      }
      return undefined;
    };
    expect(code(() => retag([], [''], []))).toBe('INVALID_ARGUMENT');
    expect(code(() => retag([], [], ['x'.repeat(101)]))).toBe('INVALID_ARGUMENT');
    const fifty = Array.from({ length: 50 }, (_, i) => `t${i}`);
    expect(retag(fifty, [], []).changed).toBe(false);
    expect(code(() => retag(fifty, ['one-more'], []))).toBe('INVALID_ARGUMENT');
  });
});
