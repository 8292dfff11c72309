import type { Service } from '../../readme-script.js';

// When each fault of a chaos run happens: a pure decision from the run's profile, so the same
// profile always gives the same schedule and the CI run is the full run made small.

/** A service's process killed with SIGKILL (its supervisor starts it again), or PostgreSQL restarted. */
export type Fault = { kind: 'kill'; service: Service } | { kind: 'restart-postgres' };

export interface ChaosProfile {
  /** The services killed, in this order. */
  kills: readonly Service[];
  /** Restart PostgreSQL once, after this many kills. */
  restartPostgresAfter: number;
  /** Concurrent MCP clients writing. */
  writers: number;
  /** Load before the first fault, and between one fault's recovery and the next fault. */
  warmupMs: number;
  gapMs: number;
  /** Load after the last fault's recovery, before the load stops. */
  cooldownMs: number;
}

/** Every service killed once, PostgreSQL restarted halfway: `npm run chaos`. */
export const FULL_PROFILE: ChaosProfile = {
  kills: ['gateway', 'plan-engine', 'artifact-store', 'search', 'extraction', 'indexer'],
  restartPostgresAfter: 3,
  writers: 4,
  warmupMs: 8_000,
  gapMs: 6_000,
  cooldownMs: 6_000,
};

/** One fault of each kind with a small load: the CI run. */
export const SHORT_PROFILE: ChaosProfile = {
  kills: ['artifact-store', 'indexer'],
  restartPostgresAfter: 1,
  writers: 2,
  warmupMs: 1_000,
  gapMs: 500,
  cooldownMs: 500,
};

export function faultName(fault: Fault): string {
  return fault.kind === 'kill' ? `SIGKILL ${fault.service}` : 'restart PostgreSQL';
}

/**
 * The faults in order: the kills, with the PostgreSQL restart among them. The runner waits
 * `warmupMs` of load, then for each fault: acts, waits for the recovery, waits `gapMs`.
 */
export function chaosSchedule(profile: ChaosProfile): Fault[] {
  const faults: Fault[] = profile.kills.map((service) => ({ kind: 'kill', service }));
  const at = Math.max(0, Math.min(profile.restartPostgresAfter, faults.length));
  faults.splice(at, 0, { kind: 'restart-postgres' });
  return faults;
}
