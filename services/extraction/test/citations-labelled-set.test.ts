import { describe, expect, it } from '@jest/globals';
import { loadCitationSet } from '../src/evaluation/citation-set.js';
import { evaluateCitations } from '../src/evaluation/citation-evaluation.js';

// The floors are the figures measured when the ranking and the checks were settled (ADR 0060);
// a change that lowers them must say why there.
describe('verify_citations on the labelled set', () => {
  it('has at least 100 claim–source pairs, a held-out part, and every kind of verdict', async () => {
    const set = await loadCitationSet();
    const claims = set.flatMap((c) => c.claims);
    expect(claims.length).toBeGreaterThanOrEqual(100);
    expect(set.filter((c) => c.heldOut).flatMap((c) => c.claims).length).toBeGreaterThanOrEqual(30);
    for (const verdict of ['supported', 'partially_supported', 'contradicted', 'not_enough_information'] as const)
      expect(claims.filter((c) => c.verdict === verdict).length).toBeGreaterThanOrEqual(10);
    for (const c of set) for (const claim of c.claims) if (claim.evidence) expect(c.source).toContain(claim.evidence);
  });

  it('never flags a supported claim, and flags only claims that are not supported', async () => {
    const report = evaluateCitations(await loadCitationSet());
    expect(report.falseFlags).toEqual([]);
    expect(report.all.supportedFlagged).toBe(0);
    expect(report.all.checkPrecision).toBe(1);
    expect(report.all.labelledFlagsCaught / report.all.labelledFlags).toBeGreaterThanOrEqual(0.9);
  });

  it('offers the evidence sentence among the top 3 passages for at least 9 claims in 10', async () => {
    const report = evaluateCitations(await loadCitationSet());
    expect(report.all.recallAt3).toBeGreaterThanOrEqual(0.92);
    expect(report.heldOut.recallAt3).toBeGreaterThanOrEqual(0.92);
    expect(report.all.recallAt5).toBeGreaterThanOrEqual(0.97);
    expect(report.all.pooledRecallAt3).toBeGreaterThanOrEqual(0.88);
  });
});
