import autocannon from 'autocannon';

/** Nearest-rank percentile (0 < p ≤ 100) of the samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error('percentile of no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

export interface Bounds {
  /** At most this many rounds… */
  count: number;
  /** …and stop starting new ones after this long. */
  maxMs: number;
}

export type Progress = (line: string) => void;

/**
 * Latency, one request at a time: each round calls every target once, in turn, so the targets
 * share the machine's noise (interleaved rather than one after the other). Returns each
 * target's durations in ms.
 */
export async function interleavedLatency<K extends string>(
  targets: Record<K, () => Promise<unknown>>,
  bounds: Bounds,
  progress: Progress = () => {},
): Promise<Record<K, number[]>> {
  const names = Object.keys(targets) as K[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  const started = performance.now();
  let reported = started;
  for (let round = 0; round < bounds.count && performance.now() - started < bounds.maxMs; round++) {
    for (const name of names) {
      const began = performance.now();
      await targets[name]();
      samples[name].push(performance.now() - began);
    }
    if (performance.now() - reported > 5_000) {
      reported = performance.now();
      progress(`${round + 1}/${bounds.count} rounds`);
    }
  }
  return samples;
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  /** Concurrent clients (one keep-alive connection each). */
  connections: number;
  /** Time bound of the run. */
  seconds: number;
  /** Count bound of the run (requests over all connections). */
  maxRequests: number;
  /** The body every request sends, unless `setupClient` gives a connection its own requests. */
  body?: string;
  /** Per-connection requests (autocannon's Client), e.g. a chain whose second call uses the first's answer. */
  setupClient?: (client: autocannon.Client) => void;
  /** A 200 whose body fails this check is a failed call (counted in `mismatches`). */
  verifyBody?: (body: string) => boolean;
}

export interface LoadResult {
  /** Completed requests (HTTP responses) over the run. */
  requests: number;
  seconds: number;
  perSecond: number;
  /** Transport errors + timeouts + non-2xx + bodies that failed verifyBody. */
  failures: number;
}

const SETTLE_MS = 500;

/**
 * Throughput, bounded in time and count, from autocannon in this process: `connections`
 * keep-alive clients each send their next request as soon as the last one is answered.
 * Returns a handle so a run can be stopped early (e.g. when its data runs out).
 */
export function startLoad(options: LoadOptions): { stop(): void; done: Promise<LoadResult> } {
  let instance: autocannon.Instance | undefined;
  const done = new Promise<LoadResult>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.url,
        method: 'POST',
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        duration: options.seconds,
        maxOverallRequests: options.maxRequests,
        setupClient: options.setupClient,
        // autocannon hands verifyBody the body as a string (its types are wider than that).
        verifyBody: options.verifyBody as ((body: unknown) => boolean) | undefined,
        // Sample (and notice the end) every 100 ms, so short runs end on time.
        sampleInt: 100,
        timeout: 30,
      },
      (error, result) => {
        if (error) return reject(error);
        const requests = result.requests.total;
        const failures = result.errors + result.non2xx + result.mismatches; // errors include timeouts
        // autocannon ends a run by closing its sockets; the calls then in flight still finish on
        // the server. Let them, so they neither bleed into the next run nor outlive a shutdown.
        setTimeout(
          () => resolve({ requests, seconds: result.duration, perSecond: requests / result.duration, failures }),
          SETTLE_MS,
        );
      },
    );
  });
  return { stop: () => instance?.stop(), done };
}
