/**
 * LanceDB's cache caps for the memory a process may use (ADR 0037). The caps were chosen on a
 * machine with memory to spare (1,024 MiB of index, 256 MiB of metadata: within a few percent of
 * LanceDB's own 6 GB / 1 GB on search latency); a 2 GB VPS or a container with a 1 GiB limit
 * cannot give a cache that much, so below 8 GiB available they shrink with it — an eighth of it
 * for index data, a thirty-second for metadata — and never under 64 / 16 MiB, where LanceDB
 * would re-read index files on every query.
 */
export interface LanceCacheCaps {
  indexCacheMb: number;
  metadataCacheMb: number;
}

const LANCE_CACHE_CEILING: LanceCacheCaps = { indexCacheMb: 1024, metadataCacheMb: 256 };
const FLOOR: LanceCacheCaps = { indexCacheMb: 64, metadataCacheMb: 16 };

export function lanceCacheCaps(availableMb: number): LanceCacheCaps {
  const within = (share: number, key: keyof LanceCacheCaps) =>
    Math.max(FLOOR[key], Math.min(LANCE_CACHE_CEILING[key], Math.floor(availableMb * share)));
  return { indexCacheMb: within(1 / 8, 'indexCacheMb'), metadataCacheMb: within(1 / 32, 'metadataCacheMb') };
}
