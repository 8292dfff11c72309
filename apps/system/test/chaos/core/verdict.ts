// The verdict of a chaos run from what the load saw and what search answers afterwards: pure,
// so each rule (what counts as lost, duplicated, resurrected) is tested without a cluster.

/** One stored item of the load: its unique token (in its text) and idempotency key. */
export interface WriteRecord {
  token: string;
  /** Every id a call for this key answered (a retry must answer the first one). */
  ids: string[];
  /** Calls made for it (1 when the first call was answered). */
  attempts: number;
  /** Whether some call for it got no answer at all (connection refused, reset or cut). */
  cut: boolean;
  /** Whether some call for it was answered. */
  acknowledged: boolean;
  /** `acknowledged`: a delete_artifact/delete_plan covering it was answered; `unresolved`: tried, never answered. */
  deletion: 'none' | 'acknowledged' | 'unresolved';
}

/** What the checker found for a token after the run. */
export interface Observation {
  /** Ids of search_sources hits for the token. */
  hits: string[];
  /** get_artifact of the acknowledged id; undefined when not read. */
  readable?: boolean;
}

export interface ChaosCounts {
  acknowledged: number;
  /** Acknowledged only after a failed call and a retry with the same key. */
  retried: number;
  /** Of those, the ones where a call got no answer at all: it may have committed. */
  retriedAfterCut: number;
  /** Never answered although retried (the load stopped first): each may exist at most once. */
  unacknowledged: number;
  deletions: number;
  lost: number;
  duplicated: number;
  resurrected: number;
}

export interface ChaosVerdict {
  counts: ChaosCounts;
  /** One line per lost, duplicated or resurrected item (the first 20). */
  problems: string[];
  ok: boolean;
}

export function chaosVerdict(writes: readonly WriteRecord[], observed: ReadonlyMap<string, Observation>): ChaosVerdict {
  const counts: ChaosCounts = {
    acknowledged: 0,
    retried: 0,
    retriedAfterCut: 0,
    unacknowledged: 0,
    deletions: 0,
    lost: 0,
    duplicated: 0,
    resurrected: 0,
  };
  const problems: string[] = [];
  const problem = (line: string) => problems.length < 20 && problems.push(line);
  for (const write of writes) {
    const seen = observed.get(write.token) ?? { hits: [] };
    const ids = [...new Set(write.ids)];
    if (write.acknowledged) counts.acknowledged++;
    else counts.unacknowledged++;
    if (write.acknowledged && write.attempts > 1) counts.retried++;
    if (write.acknowledged && write.attempts > 1 && write.cut) counts.retriedAfterCut++;
    if (ids.length > 1) {
      counts.duplicated++;
      problem(`${write.token}: one key answered ${ids.length} ids (${ids.join(', ')})`);
      continue;
    }
    if (write.deletion === 'unresolved') continue;
    if (write.deletion === 'acknowledged') {
      counts.deletions++;
      if (seen.hits.length > 0 || seen.readable === true) {
        counts.resurrected++;
        problem(`${write.token}: deleted, yet ${seen.hits.length} search hit(s), readable ${seen.readable === true}`);
      }
      continue;
    }
    if (seen.hits.length > 1) {
      counts.duplicated++;
      problem(`${write.token}: ${seen.hits.length} search hits (${seen.hits.join(', ')})`);
    } else if (write.acknowledged && seen.hits[0] !== ids[0]) {
      counts.lost++;
      problem(`${write.token}: acknowledged as ${ids[0]}, search found ${seen.hits[0] ?? 'nothing'}`);
    }
  }
  return { counts, problems, ok: counts.lost + counts.duplicated + counts.resurrected === 0 };
}
