#!/usr/bin/env node
// The `quarry` command. A committed launcher so npm can link it on install, before the first
// build; the CLI itself is compiled TypeScript in dist/.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { constants } from 'node:os';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('quarry is not built yet: run `npm run build` (or `npm start`) in the repository first.\n');
  process.exit(1);
}

// glibc gives each thread that allocates its own malloc arena (up to 8 per core) and keeps what
// each one freed; LanceDB's native runtime runs dozens of threads, so `quarry start` held ~440 MB
// more at 100k chunks than with two arenas (ADR 0037). glibc reads MALLOC_ARENA_MAX once, when the
// process starts, so a long-running `quarry start` without it is started again with it. Node 22's
// process.execve replaces this process; on older Node a child runs and this process only relays
// signals and the exit code (the child watches it and stops if it dies).
const ARENAS = '2';
if (process.argv[2] === 'start' && process.platform === 'linux' && process.env.MALLOC_ARENA_MAX === undefined) {
  const argv = [...process.execArgv, ...process.argv.slice(1)];
  const env = { ...process.env, MALLOC_ARENA_MAX: ARENAS };
  if (typeof process.execve === 'function') process.execve(process.execPath, [process.execPath, ...argv], env);
  // Its own session, so a Ctrl-C reaches it once (relayed from here), not twice.
  const child = spawn(process.execPath, argv, { env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 1)));
} else {
  if (process.send && process.channel) {
    // Started by the relay above (or any parent over IPC): stop cleanly when that parent is gone.
    process.channel.unref();
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  }
  await import(entry.href);
}
