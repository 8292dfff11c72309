import { describe, expect, it } from '@jest/globals';
import { chunkText } from '../src/index.js';

const sentence = (i: number): string => `Sentence number ${i} talks about subject ${i % 7} in plain words.`;
const doc = Array.from({ length: 200 }, (_, i) => sentence(i)).join(' ');

describe('chunkText', () => {
  it('returns nothing for empty or blank text and one chunk for short text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('  \n ')).toEqual([]);
    expect(chunkText('  hello world. ')).toEqual([{ chunkNo: 0, text: 'hello world.', start: 2, end: 14 }]);
  });

  it('keeps character offsets: every chunk is exactly the slice of the source it claims', () => {
    const chunks = chunkText(doc);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) expect(doc.slice(c.start, c.end)).toBe(c.text);
    expect(chunks.map((c) => c.chunkNo)).toEqual(chunks.map((_, i) => i));
  });

  it('makes chunks of 160–300 words (the last may be shorter) that overlap and cover the text', () => {
    const chunks = chunkText(doc);
    chunks.slice(0, -1).forEach((c) => {
      const n = c.text.split(/\s+/).length;
      expect(n).toBeGreaterThanOrEqual(160);
      expect(n).toBeLessThanOrEqual(300);
    });
    expect(chunks[0]!.start).toBe(0);
    expect(chunks.at(-1)!.end).toBe(doc.length);
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]!.start).toBeLessThan(chunks[i - 1]!.end); // overlap
      expect(chunks[i]!.start).toBeGreaterThan(chunks[i - 1]!.start); // progress
    }
  });

  it('cuts at sentence ends and starts the overlap at a sentence start', () => {
    const chunks = chunkText(doc);
    chunks.slice(0, -1).forEach((c) => expect(c.text.endsWith('.')).toBe(true));
    chunks.forEach((c) => expect(c.text.startsWith('Sentence')).toBe(true));
  });

  it('prefers a paragraph break inside the window', () => {
    const para = Array.from({ length: 20 }, (_, i) => sentence(i)).join(' '); // 200 words
    const text = `${para}\n\n${para}`;
    const [first] = chunkText(text);
    expect(first!.end).toBe(para.length);
  });

  it('cuts hard at maxWords when the text has no sentence ends, and is deterministic', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `w${i}`).join(' ');
    const a = chunkText(text, { minWords: 100, maxWords: 200, overlapWords: 20 });
    expect(a[0]!.text.split(' ')).toHaveLength(200);
    expect(a[1]!.text.startsWith('w180 ')).toBe(true);
    expect(chunkText(text, { minWords: 100, maxWords: 200, overlapWords: 20 })).toEqual(a);
  });

  it('rejects inconsistent options', () => {
    expect(() => chunkText('x', { minWords: 10, maxWords: 5 })).toThrow(RangeError);
    expect(() => chunkText('x', { minWords: 10, overlapWords: 10 })).toThrow(RangeError);
  });
});
