import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';

// The cgroup files a container's memory limit is read from: v2 first, then v1. Unlimited reads
// as "max" (v2) or a number near 2^63 (v1); both leave the machine's memory as the bound.
const CGROUP_LIMITS = ['/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/memory/memory.limit_in_bytes'];

/** MiB this process may use: the machine's memory, or the container's limit when lower. */
export function availableMemoryMb(limitFiles: readonly string[] = CGROUP_LIMITS): number {
  let bytes = totalmem();
  for (const file of limitFiles) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch {
      continue; // not in a cgroup of this version (or not Linux)
    }
    const limit = Number(text);
    if (Number.isFinite(limit) && limit > 0) bytes = Math.min(bytes, limit);
    break;
  }
  return Math.floor(bytes / (1024 * 1024));
}
