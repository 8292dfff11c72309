import { readdirSync, readFileSync } from 'node:fs';

// Memory of a process tree from /proc (Linux): what `quarry start` and its children hold.

/** Resident memory of one process: PSS when the kernel reports it (shared pages counted once), else RSS. */
function residentKb(pid: number): number {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const pss = /^Pss:\s+(\d+) kB/m.exec(rollup);
    if (pss) return Number(pss[1]);
  } catch {
    // not readable (or not Linux): fall through to status
  }
  try {
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return rss ? Number(rss[1]) : 0;
  } catch {
    return 0; // the process has exited
  }
}

/** `root` and every process below it, each with its command name. */
function processTree(root: number): { pid: number; comm: string }[] {
  const children = new Map<number, number[]>();
  const comms = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …; comm may contain spaces and parentheses, so split at the last ')'.
      const close = stat.lastIndexOf(')');
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      comms.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree: { pid: number; comm: string }[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    tree.push({ pid, comm: comms.get(pid) ?? '' });
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** MB held by Quarry's processes and, separately, by PostgreSQL's, under `root`. */
export function memoryOf(root: number): { quarry: number; postgres: number } {
  let quarry = 0;
  let postgres = 0;
  for (const { pid, comm } of processTree(root)) {
    const kb = residentKb(pid);
    if (comm === 'postgres') postgres += kb;
    else quarry += kb;
  }
  return { quarry: quarry / 1024, postgres: postgres / 1024 };
}

/** The peak of `memoryOf(root)`, sampled every 250 ms while `work` runs. */
export async function peakMemoryDuring<T>(
  root: number,
  work: () => Promise<T>,
): Promise<{ result: T; peak: { quarry: number; postgres: number } }> {
  const peak = { quarry: 0, postgres: 0 };
  const sample = () => {
    const now = memoryOf(root);
    peak.quarry = Math.max(peak.quarry, now.quarry);
    peak.postgres = Math.max(peak.postgres, now.postgres);
  };
  const sampler = setInterval(sample, 250);
  try {
    const result = await work();
    sample();
    return { result, peak };
  } finally {
    clearInterval(sampler);
  }
}
