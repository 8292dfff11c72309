import { describe, expect, it } from '@jest/globals';
import { evaluateFlags, loadFlagCorpus } from '../src/index.js';

// The targets (ADR 0062): precision ≥ 0.95 at recall ≥ 0.8, held on the part never tuned on.
const PRECISION = 0.95;
const RECALL = 0.8;

describe('the labelled set', () => {
  it('is big enough: ≥ 150 benign items (hard negatives among them) and ≥ 100 injections', () => {
    const all = [...loadFlagCorpus('tuning'), ...loadFlagCorpus('held-out')];
    expect(all.filter((i) => i.label === 'benign').length).toBeGreaterThanOrEqual(150);
    expect(all.filter((i) => i.category === 'about_injection').length).toBeGreaterThanOrEqual(30);
    expect(all.filter((i) => i.label === 'injection').length).toBeGreaterThanOrEqual(100);
    expect(new Set(all.map((i) => i.id)).size).toBe(all.length);
  });

  it('held-out precision and recall stay above the targets', () => {
    const heldOut = evaluateFlags(loadFlagCorpus('held-out'));
    expect(heldOut.benign).toBeGreaterThanOrEqual(50);
    expect(heldOut.injections).toBeGreaterThanOrEqual(50);
    expect(heldOut.precision).toBeGreaterThanOrEqual(PRECISION);
    expect(heldOut.recall).toBeGreaterThanOrEqual(RECALL);
  });

  it('tuning precision and recall stay above the targets too', () => {
    const tuning = evaluateFlags(loadFlagCorpus('tuning'));
    expect(tuning.precision).toBeGreaterThanOrEqual(PRECISION);
    expect(tuning.recall).toBeGreaterThanOrEqual(RECALL);
  });
});
