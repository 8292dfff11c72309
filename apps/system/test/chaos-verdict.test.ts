import { describe, expect, it } from '@jest/globals';
import { chaosPassed, chaosReportLines, type ChaosReport } from './chaos/core/report.js';
import { chaosSchedule, FULL_PROFILE, SHORT_PROFILE } from './chaos/core/schedule.js';
import { chaosVerdict, type Observation, type WriteRecord } from './chaos/core/verdict.js';

// The chaos run's pure decisions: its schedule, and what counts as lost, duplicated or resurrected.

const write = (token: string, over: Partial<WriteRecord> = {}): WriteRecord => ({
  token,
  ids: [`id-${token}`],
  attempts: 1,
  cut: false,
  acknowledged: true,
  deletion: 'none',
  ...over,
});
const seen = (entries: [string, Observation][]) => new Map(entries);

describe('chaos schedule', () => {
  it('kills every service once in the full run and restarts PostgreSQL among them', () => {
    const faults = chaosSchedule(FULL_PROFILE);
    expect(faults.filter((f) => f.kind === 'kill').map((f) => f.kind === 'kill' && f.service)).toEqual([
      'gateway',
      'plan-engine',
      'artifact-store',
      'search',
      'extraction',
      'indexer',
    ]);
    expect(faults.findIndex((f) => f.kind === 'restart-postgres')).toBe(3);
  });

  it('keeps one fault of each kind in the short run, the restart inside the range', () => {
    expect(chaosSchedule(SHORT_PROFILE)).toEqual([
      { kind: 'kill', service: 'artifact-store' },
      { kind: 'restart-postgres' },
      { kind: 'kill', service: 'indexer' },
    ]);
    expect(chaosSchedule({ ...SHORT_PROFILE, restartPostgresAfter: 99 }).at(-1)).toEqual({ kind: 'restart-postgres' });
  });
});

describe('chaos verdict', () => {
  it('passes when each acknowledged item is found once under its own id and each deletion stays deleted', () => {
    const verdict = chaosVerdict(
      [
        write('a'),
        write('b', { attempts: 3, cut: true }),
        write('e', { attempts: 2 }),
        write('c', { deletion: 'acknowledged' }),
        write('d', { acknowledged: false, ids: [] }),
      ],
      seen([
        ['a', { hits: ['id-a'] }],
        ['b', { hits: ['id-b'] }],
        ['c', { hits: [], readable: false }],
        ['d', { hits: ['id-x'] }],
        ['e', { hits: ['id-e'] }],
      ]),
    );
    expect(verdict).toEqual({
      counts: {
        acknowledged: 4,
        retried: 2,
        retriedAfterCut: 1,
        unacknowledged: 1,
        deletions: 1,
        lost: 0,
        duplicated: 0,
        resurrected: 0,
      },
      problems: [],
      ok: true,
    });
  });

  it('counts an acknowledged item not found, or found under another id, as lost', () => {
    const verdict = chaosVerdict([write('a'), write('b')], seen([['b', { hits: ['id-other'] }]]));
    expect(verdict.counts.lost).toBe(2);
    expect(verdict.ok).toBe(false);
    expect(verdict.problems[1]).toMatch(/b: acknowledged as id-b, search found id-other/);
  });

  it('counts two hits for one token, or one key answered with two ids, as duplicated — also when never answered', () => {
    const verdict = chaosVerdict(
      [write('a'), write('b', { ids: ['id-b', 'id-b2'], attempts: 2 }), write('c', { acknowledged: false, ids: [] })],
      seen([
        ['a', { hits: ['id-a', 'id-a2'] }],
        ['b', { hits: ['id-b'] }],
        ['c', { hits: ['x', 'y'] }],
      ]),
    );
    expect(verdict.counts).toMatchObject({ duplicated: 3, lost: 0 });
    expect(verdict.ok).toBe(false);
  });

  it('counts a deleted item still found by search or still readable as resurrected; an unresolved deletion is not judged', () => {
    const verdict = chaosVerdict(
      [
        write('a', { deletion: 'acknowledged' }),
        write('b', { deletion: 'acknowledged' }),
        write('c', { deletion: 'unresolved' }),
      ],
      seen([
        ['a', { hits: ['id-a'], readable: false }],
        ['b', { hits: [], readable: true }],
        ['c', { hits: ['id-c'] }],
      ]),
    );
    expect(verdict.counts).toMatchObject({ deletions: 2, resurrected: 2, lost: 0 });
  });
});

describe('chaos report', () => {
  const report = (over: Partial<ChaosReport> = {}): ChaosReport => ({
    verdict: chaosVerdict([write('a')], seen([['a', { hits: ['id-a'] }]])),
    recoveries: [{ fault: 'SIGKILL indexer', restartMs: 4_000, recoverMs: 4_200 }],
    replayMs: 1_500,
    unplannedRestarts: { gateway: 0 },
    anomalies: [],
    loadMs: 30_000,
    ...over,
  });

  it('fails on a fault that never healed, an unexpected answer or a replay that never caught up', () => {
    expect(chaosPassed(report())).toBe(true);
    expect(chaosPassed(report({ recoveries: [{ fault: 'x', restartMs: null, recoverMs: null }] }))).toBe(false);
    expect(chaosPassed(report({ anomalies: ['store_research a: IDEMPOTENCY_KEY_REUSED'] }))).toBe(false);
    expect(chaosPassed(report({ replayMs: null }))).toBe(false);
  });

  it('prints the counts and each recovery', () => {
    expect(chaosReportLines(report())).toEqual([
      'load: 30.0 s; acknowledged 1 (retried after a failed call 0, of them after a cut connection 0), never answered 0, deletions acknowledged 0',
      'SIGKILL indexer: back in 4.0 s, serving again at 4.2 s',
      'indexer replayed from the start in 1.5 s',
      'lost 0, duplicated 0, resurrected deletions 0',
      'PASS',
    ]);
  });
});
