import { describe, expect, it } from '@jest/globals';
import { convertDocument } from '../src/index.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

describe('the conversion worker', () => {
  it('stops a conversion past its deadline with TIMEOUT and keeps converting afterwards', async () => {
    const started = Date.now();
    await expect(
      convertDocument({ bytes: utf8('word '.repeat(2_000_000)) }, { limits: { timeoutMs: 50 } }),
    ).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(convertDocument({ bytes: utf8('still here') })).resolves.toMatchObject({ text: 'still here' });
  });

  it('ends a worker that outgrows its heap with OUT_OF_MEMORY, not the caller', async () => {
    // 8 million short Markdown lines: cutting them into sections holds millions of small strings.
    const bytes = new Uint8Array(24 * 1024 * 1024).fill(0x61);
    for (let i = 2; i < bytes.length; i += 3) bytes[i] = 0x0a;
    await expect(
      convertDocument({ bytes, fileName: 'lines.md' }, { limits: { maxHeapMb: 16, timeoutMs: 60_000 } }),
    ).rejects.toMatchObject({
      code: 'OUT_OF_MEMORY',
    });
    const heapAfter = process.memoryUsage().heapUsed;
    expect(heapAfter).toBeLessThan(1024 * 1024 * 1024);
    await expect(convertDocument({ bytes: utf8('still here') })).resolves.toMatchObject({ text: 'still here' });
  });

  it('stops when the caller aborts, with the signal’s reason', async () => {
    const controller = new AbortController();
    const pending = convertDocument({ bytes: utf8('word '.repeat(2_000_000)) }, { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('refuses limits that are not positive numbers at once', async () => {
    await expect(convertDocument({ bytes: utf8('x') }, { limits: { maxHeapMb: 0 } })).rejects.toThrow(
      'conversion limit maxHeapMb must be a positive number, got 0',
    );
  });
});
