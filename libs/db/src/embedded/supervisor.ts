import type { ChildProcess } from 'node:child_process';
import type { EmbeddedPostgresSupervisor } from './options.js';

interface SupervisionOptions {
  supervisor: EmbeddedPostgresSupervisor;
  /** Starts the server again, on the same port with the same settings. */
  start: () => Promise<ChildProcess>;
  /** True once `stop()` was called: an exit then is expected, and no restart follows. */
  isStopping: () => boolean;
  /** The server that replaced the one that exited. */
  onRestarted: (server: ChildProcess) => void;
}

/**
 * Restart the server when it exits without `stop()` (killed by the OOM killer, a crash), up to
 * `maxAttempts` times (default 5), waiting 250 ms doubling between tries: clients reconnect on
 * their own, so `npm start` heals instead of failing every call until someone restarts it.
 * `restarting()` is the restart in progress, if any, for `stop()` to wait for.
 */
export function superviseServer(
  first: ChildProcess,
  options: SupervisionOptions,
): { restarting: () => Promise<void> | undefined } {
  const { supervisor, isStopping } = options;
  let restarting: Promise<void> | undefined;

  const watch = (current: ChildProcess) => {
    current.once('exit', (code, signal) => {
      if (isStopping()) return;
      supervisor.onExit(signal ? `killed by ${signal}` : `exit code ${code}`);
      restarting = restart().finally(() => (restarting = undefined));
    });
  };

  async function restart(): Promise<void> {
    const began = performance.now();
    const maxAttempts = supervisor.maxAttempts ?? 5;
    let lastError: Error | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      // The old server's backends notice its death and exit; until then its shared memory is in use.
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 250 * 2 ** (attempt - 1)));
      if (isStopping()) return;
      try {
        const server = await options.start();
        options.onRestarted(server);
        watch(server);
        supervisor.onRestarted({ pid: server.pid!, ms: Math.round(performance.now() - began), attempts: attempt });
        return;
      } catch (error) {
        lastError = error as Error;
      }
    }
    supervisor.onGaveUp(lastError ?? new Error('PostgreSQL could not be restarted'));
  }

  watch(first);
  return { restarting: () => restarting };
}
