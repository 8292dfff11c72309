import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';

/**
 * `--profile <dir>`: a V8 CPU profile of the bench process for each phase, written as
 * `<dir>/<phase-name>.cpuprofile` (open it in Chrome DevTools' Performance panel or speedscope). The
 * one-process system runs in this process — gateway, services, indexer — beside the load
 * clients, so the profile shows where a tool call's time goes; phases that measure a child
 * process (the topology, `quarry start`) show only their clients' side.
 */
export async function profiled<T>(dir: string | undefined, phase: string, work: () => Promise<T>): Promise<T> {
  if (dir === undefined) return work();
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    try {
      return await work();
    } finally {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${phase.replace(/[^A-Za-z0-9]+/g, '-')}.cpuprofile`), JSON.stringify(profile));
    }
  } finally {
    session.disconnect();
  }
}
