import { describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import {
  auditRowContent,
  type ChainedAuditRow,
  type ChainedTombstone,
  GENESIS_HASH,
  linkHash,
  sha256Hex,
  tombstoneContent,
} from '../../src/core/audit-chain.js';
import { verifyAuditChain } from '../../src/core/audit-chain-verify.js';
import { signCheckpoint, type SignedCheckpoint } from '../../src/core/audit-checkpoint.js';

// The verifier alone, on chains built here: each kind of damage is reported at its position.
// (The same against rows PostgreSQL hashed: test/audit-chain/.)

const ORG = '11111111-1111-4111-8111-111111111111';
const PLAN = '22222222-2222-4222-8222-222222222222';
const { privateKey, publicKey } = generateKeyPairSync('ed25519');

function row(seq: number, prevHash: string, details = `{"i": ${seq}}`): ChainedAuditRow {
  const draft = {
    id: String(100 + seq),
    orgId: ORG,
    chainSeq: seq,
    planId: PLAN,
    stepId: null,
    sessionId: 's',
    eventType: 'session_resumed',
    detailsJson: details,
    occurredAt: '2026-11-28T17:00:00.000001Z',
    prevHash,
    rowHash: '',
  };
  return { ...draft, rowHash: linkHash(prevHash, sha256Hex(auditRowContent(draft))) };
}

/** `n` chained rows. */
function chain(n: number): ChainedAuditRow[] {
  const rows: ChainedAuditRow[] = [];
  for (let seq = 1; seq <= n; seq++) rows.push(row(seq, rows.at(-1)?.rowHash ?? GENESIS_HASH));
  return rows;
}

const checkpointOf = (rows: readonly ChainedAuditRow[], key = privateKey): SignedCheckpoint =>
  signCheckpoint(key, {
    orgId: ORG,
    entries: rows.length,
    headHash: rows.at(-1)!.rowHash,
    signedAt: '2026-11-28T17:05:00.000Z',
  });

const verify = (rows: readonly ChainedAuditRow[], more: Partial<Parameters<typeof verifyAuditChain>[0]> = {}) =>
  verifyAuditChain({ orgId: ORG, rows, tombstones: [], checkpoints: [], publicKey, ...more });

describe('the audit chain verifier', () => {
  it('renders the canonical content as PostgreSQL prints a jsonb array', () => {
    expect(auditRowContent(row(3, GENESIS_HASH, '{"a": [1, "x"]}'))).toBe(
      `["quarry.audit.row.v1", "${ORG}", 3, "${PLAN}", null, "s", "session_resumed", {"a": [1, "x"]}, "2026-11-28T17:00:00.000001Z"]`,
    );
  });

  it('passes a clean chain with its signed checkpoint', () => {
    const rows = chain(5);
    expect(verify(rows, { checkpoints: [checkpointOf(rows)] })).toEqual({
      orgId: ORG,
      entries: 5,
      rows: 5,
      tombstones: 0,
      purged: 0,
      checkpoints: 1,
      signaturesChecked: true,
      headHash: rows[4]!.rowHash,
    });
  });

  it('reports an edit, a removal, a twin, and a move at their positions', () => {
    const rows = chain(5);
    const edited = rows.map((r) => (r.chainSeq === 2 ? { ...r, detailsJson: '{"i": 9}' } : r));
    expect(verify(edited).break).toMatchObject({
      seq: 2,
      entry: 'plan_audit_log 102',
      reason: expect.stringMatching(/edited/),
    });
    expect(verify(rows.filter((r) => r.chainSeq !== 3)).break).toMatchObject({
      seq: 3,
      reason: expect.stringMatching(/removed/),
    });
    expect(verify([...rows, { ...rows[1]!, id: '999' }]).break).toMatchObject({
      seq: 2,
      reason: expect.stringMatching(/twice/),
    });
    const moved = rows.map((r) =>
      r.chainSeq === 4 ? { ...r, chainSeq: 5 } : r.chainSeq === 5 ? { ...r, chainSeq: 4 } : r,
    );
    expect(verify(moved).break).toMatchObject({ seq: 4, reason: expect.stringMatching(/edited|prev_hash/) });
  });

  it('reports a tail cut under a checkpoint, a rewritten head, a wrong key and a bad signature', () => {
    const rows = chain(5);
    const checkpoint = checkpointOf(rows);
    expect(verify(rows.slice(0, 3), { checkpoints: [checkpoint] }).break).toMatchObject({
      seq: 4,
      reason: expect.stringMatching(/ends at 3 entries, but a checkpoint covers 5/),
    });
    // Without a checkpoint covering it, a cut tail is a shorter chain: what checkpoints are for.
    expect(verify(rows.slice(0, 3)).break).toBeUndefined();
    expect(verify(rows, { checkpoints: [{ ...checkpoint, headHash: 'f'.repeat(64) }] }).break).toMatchObject({
      seq: 5,
      reason: expect.stringMatching(/rewritten/),
    });
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(verify(rows, { checkpoints: [checkpointOf(rows, other)] }).break?.reason).toMatch(/another key/);
    expect(
      verify(rows, { checkpoints: [{ ...checkpoint, signedAt: '2026-11-28T18:00:00.000Z' }] }).break?.reason,
    ).toMatch(/signature does not verify/);
    // Without the public key a forged checkpoint passes, and the result says signatures were not checked.
    expect(verify(rows, { checkpoints: [checkpointOf(rows, other)], publicKey: undefined })).toMatchObject({
      signaturesChecked: false,
    });
  });

  it('walks across purged rows by the links of the tombstone that follows them, and refuses bad links', () => {
    const rows = chain(3);
    const links = JSON.stringify([[2, sha256Hex(auditRowContent(rows[1]!))]]).replace(',', ', ');
    const draft: ChainedTombstone = {
      id: '7',
      orgId: ORG,
      chainSeq: 4,
      planId: PLAN,
      deletedBy: 'user-1',
      requestId: null,
      stepsDeleted: 1,
      artifactsDeleted: 0,
      outputsDeleted: 0,
      extractionResultsDeleted: 0,
      auditRowsPurged: 1,
      auditRowsSha256: 'a'.repeat(64),
      purgedLinksJson: links,
      deletedAt: '2026-11-28T17:10:00.000000Z',
      prevHash: rows[2]!.rowHash,
      rowHash: '',
    };
    const tombstone = { ...draft, rowHash: linkHash(draft.prevHash, sha256Hex(tombstoneContent(draft))) };
    const live = [rows[0]!, rows[2]!];
    expect(verify(live, { tombstones: [tombstone] })).toMatchObject({ entries: 4, rows: 2, tombstones: 1, purged: 1 });
    expect(verify(live, { tombstones: [tombstone] }).break).toBeUndefined();
    expect(verify(rows, { tombstones: [tombstone] }).break).toMatchObject({
      seq: 2,
      reason: expect.stringMatching(/twice/),
    });
    expect(verify(live, { tombstones: [{ ...tombstone, chainSeq: 2 }] }).break).toMatchObject({ seq: 2 });
    // Malformed links cover nothing: the gap is reported where it is, the tombstone where it is.
    const malformed = { ...tombstone, purgedLinksJson: '[[2, "nope"]]' };
    expect(verify(live, { tombstones: [malformed] }).break).toMatchObject({
      seq: 2,
      reason: expect.stringMatching(/removed/),
    });
    expect(verify(rows, { tombstones: [malformed] }).break).toMatchObject({
      seq: 4,
      reason: expect.stringMatching(/malformed/),
    });
  });
});
