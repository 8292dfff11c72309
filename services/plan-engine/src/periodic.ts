/**
 * Runs `round` every `intervalMs` in the background: never two rounds at once (a slow round makes
 * the next tick skip), and the timer never holds the process open. `stop()` clears the timer and
 * waits for a round still running. `round` handles its own errors.
 */
export function runPeriodically(intervalMs: number, round: () => Promise<void>): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= round().finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
