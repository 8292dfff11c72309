import type { KeyObject } from 'node:crypto';
import {
  auditRowContent,
  type ChainedAuditRow,
  type ChainedTombstone,
  GENESIS_HASH,
  linkHash,
  parsePurgedLinks,
  sha256Hex,
  tombstoneContent,
} from './audit-chain.js';
import { checkpointSignatureProblem, type SignedCheckpoint } from './audit-checkpoint.js';

/** The first position at which an org's chain does not check out. */
export interface ChainBreak {
  readonly seq: number;
  /** The entry at that position (`plan_audit_log 42`, `deleted_plans 7`, `purged by deleted_plans 7`), if any. */
  readonly entry?: string;
  readonly reason: string;
}

export interface ChainVerification {
  readonly orgId: string;
  /** Positions walked (live rows, tombstones and purged rows). */
  readonly entries: number;
  readonly rows: number;
  readonly tombstones: number;
  readonly purged: number;
  /** The recomputed head after the last position walked. */
  readonly headHash: string;
  readonly checkpoints: number;
  /** Whether the checkpoints' signatures were checked (a public key was given). */
  readonly signaturesChecked: boolean;
  /** Absent when the whole chain checks out. */
  readonly break?: ChainBreak;
}

export interface ChainInput {
  readonly orgId: string;
  readonly rows: readonly ChainedAuditRow[];
  readonly tombstones: readonly ChainedTombstone[];
  readonly checkpoints: readonly SignedCheckpoint[];
  /** Without it the checkpoints' heads and counts are compared but their signatures are not checked. */
  readonly publicKey?: KeyObject;
}

type Slot =
  | { kind: 'row'; row: ChainedAuditRow }
  | { kind: 'tombstone'; tombstone: ChainedTombstone }
  | { kind: 'purged'; contentSha256: string; by: ChainedTombstone };

const label = (slot: Slot): string =>
  slot.kind === 'row'
    ? `plan_audit_log ${slot.row.id}`
    : slot.kind === 'tombstone'
      ? `deleted_plans ${slot.tombstone.id}`
      : `purged by deleted_plans ${slot.by.id}`;

/**
 * Walks an org's chain from position 1 and returns where it first breaks: a position no entry
 * holds or two entries claim, an entry whose prev_hash is not its predecessor's hash (an entry
 * before it was removed, inserted or moved), an entry whose content no longer gives its
 * row_hash (edited), a checkpoint whose head the chain does not reach or does not give
 * (truncated or rewritten), or a checkpoint whose signature does not verify.
 */
export function verifyAuditChain(input: ChainInput): ChainVerification {
  const { orgId, publicKey } = input;
  const slots = new Map<number, Slot>();
  /** Structural problems, by position; the walk reports the first one it reaches. */
  const problems = new Map<number, ChainBreak>();
  const note = (seq: number, reason: string, entry?: string) => {
    if (!problems.has(seq)) problems.set(seq, { seq, reason, ...(entry ? { entry } : {}) });
  };
  const place = (seq: number, slot: Slot) => {
    const held = slots.get(seq);
    if (held) note(seq, `claimed twice, also by ${label(held)}`, label(slot));
    else slots.set(seq, slot);
  };
  for (const row of input.rows) {
    if (row.orgId !== orgId) note(row.chainSeq, `belongs to org ${row.orgId}`, `plan_audit_log ${row.id}`);
    place(row.chainSeq, { kind: 'row', row });
  }
  let purged = 0;
  for (const tombstone of input.tombstones) {
    place(tombstone.chainSeq, { kind: 'tombstone', tombstone });
    const links = parsePurgedLinks(tombstone.purgedLinksJson);
    if (typeof links === 'string') {
      note(tombstone.chainSeq, links, `deleted_plans ${tombstone.id}`);
      continue;
    }
    for (const link of links) {
      purged += 1;
      if (link.seq >= tombstone.chainSeq)
        note(link.seq, `purged by a tombstone at ${tombstone.chainSeq}, which is not after it`);
      place(link.seq, { kind: 'purged', contentSha256: link.contentSha256, by: tombstone });
    }
  }
  const checkpointsAt = new Map<number, SignedCheckpoint[]>();
  for (const c of input.checkpoints) checkpointsAt.set(c.entries, [...(checkpointsAt.get(c.entries) ?? []), c]);

  // Loops, not Math.max(...): a chain can have more positions than a call has arguments.
  let lastEntry = 0;
  for (const seq of slots.keys()) lastEntry = Math.max(lastEntry, seq);
  let last = lastEntry;
  for (const seq of checkpointsAt.keys()) last = Math.max(last, seq);
  const result = {
    orgId,
    entries: 0,
    rows: input.rows.length,
    tombstones: input.tombstones.length,
    purged,
    checkpoints: input.checkpoints.length,
    signaturesChecked: publicKey !== undefined,
  };
  let head = GENESIS_HASH;
  for (let seq = 1; seq <= last; seq++) {
    const broken = (reason: string, entry?: string): ChainVerification => ({
      ...result,
      entries: seq - 1,
      headHash: head,
      break: { seq, reason, ...(entry ? { entry } : {}) },
    });
    const problem = problems.get(seq);
    if (problem) return { ...result, entries: seq - 1, headHash: head, break: problem };
    const slot = slots.get(seq);
    if (!slot) {
      if (seq > lastEntry)
        return broken(`the chain ends at ${lastEntry} entries, but a checkpoint covers ${last} (its tail was removed)`);
      return broken('no row, tombstone or purged link holds this position (an entry was removed)');
    }
    if (slot.kind === 'purged') {
      head = linkHash(head, slot.contentSha256);
    } else {
      const entry = slot.kind === 'row' ? slot.row : slot.tombstone;
      const content = slot.kind === 'row' ? auditRowContent(slot.row) : tombstoneContent(slot.tombstone);
      if (entry.prevHash !== head)
        return broken(
          "prev_hash is not the previous entry's hash (an entry before it was removed, inserted or moved)",
          label(slot),
        );
      const expected = linkHash(head, sha256Hex(content));
      if (entry.rowHash !== expected)
        return broken('its content does not give its row_hash (the entry was edited)', label(slot));
      head = expected;
    }
    for (const checkpoint of checkpointsAt.get(seq) ?? []) {
      if (checkpoint.orgId !== orgId) return broken(`a checkpoint of org ${checkpoint.orgId} is filed under this org`);
      if (checkpoint.headHash !== head)
        return broken(
          `the checkpoint signed at ${checkpoint.signedAt} says the head here is ${checkpoint.headHash.slice(0, 16)}…, the chain gives ${head.slice(0, 16)}… (rewritten)`,
          label(slot),
        );
      const signature = publicKey && checkpointSignatureProblem(publicKey, checkpoint);
      if (signature) return broken(`the checkpoint signed at ${checkpoint.signedAt}: ${signature}`, label(slot));
    }
  }
  return { ...result, entries: last, headHash: head };
}
