/**
 * Run every step of a shutdown in order, each after the one before has finished, and go on past
 * one that fails: a step left out (the search indexes not closed because a service before them
 * failed to drain) would leave work running after close() returned. The first failure is thrown
 * once every step has run.
 */
export async function closeInOrder(steps: ReadonlyArray<() => unknown>): Promise<void> {
  let failed = false;
  let failure: unknown;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      if (!failed) [failed, failure] = [true, error];
    }
  }
  if (failed) throw failure;
}
