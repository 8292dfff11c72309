import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { availableMemoryMb } from '../src/adapters/available-memory.js';
import { embeddedCacheCaps } from '../src/backends.js';
import { lanceCacheCaps } from '../src/core/cache-caps.js';

// LanceDB's caches are sized for the memory the process may use: a container's limit, not the
// host's memory, on a small machine; LANCEDB_*_CACHE_MB still win when set.

const dir = mkdtempSync(join(tmpdir(), 'quarry-cgroup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const machineMb = Math.floor(totalmem() / 1024 / 1024);

describe('the cache caps for the memory available', () => {
  it('keep the measured caps from 8 GiB up, shrink with less memory, and never go under their floor', () => {
    expect(lanceCacheCaps(24 * 1024)).toEqual({ indexCacheMb: 1024, metadataCacheMb: 256 });
    expect(lanceCacheCaps(8 * 1024)).toEqual({ indexCacheMb: 1024, metadataCacheMb: 256 });
    expect(lanceCacheCaps(2 * 1024)).toEqual({ indexCacheMb: 256, metadataCacheMb: 64 });
    expect(lanceCacheCaps(1024)).toEqual({ indexCacheMb: 128, metadataCacheMb: 32 });
    expect(lanceCacheCaps(256)).toEqual({ indexCacheMb: 64, metadataCacheMb: 16 });
  });

  it('read a cgroup v2 or v1 limit, and the machine when there is none or it is unlimited', () => {
    expect(availableMemoryMb([file('v2', '1073741824\n')])).toBe(Math.min(1024, machineMb));
    expect(availableMemoryMb([file('v2-max', 'max\n')])).toBe(machineMb);
    expect(availableMemoryMb([join(dir, 'absent'), file('v1', '2147483648\n')])).toBe(Math.min(2048, machineMb));
    expect(availableMemoryMb([file('v1-unlimited', '9223372036854771712\n')])).toBe(machineMb);
    expect(availableMemoryMb([join(dir, 'absent')])).toBe(machineMb);
  });

  it('are what the environment sets, else what the memory available allows', () => {
    const oneGiB = () => 1024;
    expect(embeddedCacheCaps({}, oneGiB)).toEqual({ indexCacheMb: 128, metadataCacheMb: 32 });
    expect(embeddedCacheCaps({ LANCEDB_INDEX_CACHE_MB: 512 }, oneGiB)).toEqual({
      indexCacheMb: 512,
      metadataCacheMb: 32,
    });
    expect(embeddedCacheCaps({ LANCEDB_INDEX_CACHE_MB: 512, LANCEDB_METADATA_CACHE_MB: 100 }, () => 1)).toEqual({
      indexCacheMb: 512,
      metadataCacheMb: 100,
    });
  });
});
