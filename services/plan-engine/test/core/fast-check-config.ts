import fc from 'fast-check';

/**
 * Property tests run with a fixed seed so every run checks the same inputs; set FC_SEED (and
 * FC_RUNS, read by each property) to explore other inputs locally. A failure prints its seed.
 */
export function configureFastCheck(): void {
  fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20_250_101) });
}
