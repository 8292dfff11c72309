import { expect, it } from '@jest/globals';
import { chaosReportLines } from './chaos/core/report.js';
import { SHORT_PROFILE } from './chaos/core/schedule.js';
import { runChaos } from './chaos/run.js';

// `npm run chaos` made small: the README's topology (every service its own process, its own
// PostgreSQL) under an MCP write load, the artifact store and the indexer killed with SIGKILL,
// PostgreSQL restarted, the indexer replayed from the start; then every acknowledged item is
// found once by search and every acknowledged deletion stays deleted.

it('loses, duplicates and resurrects nothing through kills, a PostgreSQL restart and a replay', async () => {
  const lines: string[] = [];
  const report = await runChaos(SHORT_PROFILE, (line) => lines.push(line));
  const printed = [...lines, ...chaosReportLines(report)].join('\n');
  expect({ counts: report.verdict.counts, problems: report.verdict.problems, anomalies: report.anomalies }).toEqual({
    counts: expect.objectContaining({ lost: 0, duplicated: 0, resurrected: 0 }),
    problems: [],
    anomalies: [],
  });
  // The faults happened under load and healed: writes were acknowledged, some after a retry.
  expect(report.verdict.counts.acknowledged).toBeGreaterThan(20);
  expect(report.verdict.counts.deletions).toBeGreaterThan(0);
  expect({ printed, recovered: report.recoveries.map((r) => r.recoverMs !== null) }).toEqual({
    printed,
    recovered: [true, true, true],
  });
  expect(report.replayMs).not.toBeNull();
}, 360_000);
