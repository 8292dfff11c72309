import { describe, expect, it } from '@jest/globals';
import { QuarryError } from '@quarry/grpc';
import { createCursorCodec } from '../src/core/read-cursor.js';
import { retag } from '../src/core/tags.js';
import { pageText } from '../src/core/text-page.js';

// The pure rules behind the read and curate tools: pages of UTF-8 within a budget, sealed
// cursors, and tag updates.

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

describe('cursor codec', () => {
  const codec = createCursorCodec('k'.repeat(48));

  it('opens its own cursors for the same scope only', () => {
    const cursor = codec.seal('get_artifact:1', 4096);
    expect(codec.open(cursor, 'get_artifact:1')).toBe(4096);
    expect(codec.open(cursor, 'get_artifact:2')).toBeUndefined();
    expect(codec.open(cursor, 'fetch:1')).toBeUndefined();
    expect(codec.open(codec.seal('list', '["t","id"]'), 'list')).toBe('["t","id"]');
  });

  it('refuses another key, an edited body or tag, and garbage', () => {
    const cursor = codec.seal('s', 1);
    expect(createCursorCodec('x'.repeat(48)).open(cursor, 's')).toBeUndefined();
    const [body, tag] = cursor.split('.') as [string, string];
    const edited = Buffer.from(JSON.stringify({ s: 's', p: 2 })).toString('base64url');
    for (const bad of [`${edited}.${tag}`, `${body}.${tag.slice(1)}`, `${body}.${tag}.x`, body, '', '.', 'a.b'])
      expect(codec.open(bad, 's')).toBeUndefined();
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
