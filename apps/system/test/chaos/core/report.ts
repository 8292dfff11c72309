import type { ChaosVerdict } from './verdict.js';

// The figures a chaos run prints: pure text from what the run measured.

export interface Recovery {
  fault: string;
  /** From the fault until the service had started again (PostgreSQL: accepted connections). */
  restartMs: number | null;
  /**
   * From the fault until clients were served again after that restart (the load's calls
   * answered; for search, extraction and the indexer a probe of their own); null: never within the bound.
   */
  recoverMs: number | null;
}

export interface ChaosReport {
  verdict: ChaosVerdict;
  recoveries: Recovery[];
  /** From the indexer's rewind until it had indexed every event again. */
  replayMs: number | null;
  /** Restarts no fault of the run caused (a service that crashed on its own), per service. */
  unplannedRestarts: Record<string, number>;
  /** Unexpected answers the load saw (a refused retry, a refused item). */
  anomalies: readonly string[];
  loadMs: number;
}

export function chaosPassed(report: ChaosReport): boolean {
  return (
    report.verdict.ok &&
    report.anomalies.length === 0 &&
    report.replayMs !== null &&
    report.recoveries.every((r) => r.recoverMs !== null)
  );
}

const seconds = (ms: number | null) => (ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`);

export function recoveryLine(r: Recovery): string {
  return `${r.fault}: back in ${seconds(r.restartMs)}, serving again at ${seconds(r.recoverMs)}`;
}

export function chaosReportLines(report: ChaosReport): string[] {
  const c = report.verdict.counts;
  const unplanned = Object.entries(report.unplannedRestarts).filter(([, n]) => n > 0);
  return [
    `load: ${seconds(report.loadMs)}; acknowledged ${c.acknowledged} (retried after a failed call ${c.retried}, of them after a cut connection ${c.retriedAfterCut}), never answered ${c.unacknowledged}, deletions acknowledged ${c.deletions}`,
    ...report.recoveries.map(recoveryLine),
    `indexer replayed from the start in ${seconds(report.replayMs)}`,
    `lost ${c.lost}, duplicated ${c.duplicated}, resurrected deletions ${c.resurrected}`,
    ...(unplanned.length ? [`restarts no fault caused: ${unplanned.map(([s, n]) => `${s} ${n}`).join(', ')}`] : []),
    ...report.verdict.problems.map((p) => `  problem: ${p}`),
    ...report.anomalies.slice(0, 20).map((a) => `  unexpected answer: ${a}`),
    chaosPassed(report) ? 'PASS' : 'FAIL',
  ];
}
