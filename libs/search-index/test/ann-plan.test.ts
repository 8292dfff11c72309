import { describe, expect, it } from '@jest/globals';
import { ANN_DEFAULTS, annPartitions, annProbes, annShouldTrain } from '../src/core/ann-plan.js';

describe('ANN plan', () => {
  it('partitions √rows, at least one and at most 4096', () => {
    expect(annPartitions(1)).toBe(1);
    expect(annPartitions(100_000)).toBe(316);
    expect(annPartitions(1_000_000)).toBe(1000);
    expect(annPartitions(10 ** 8)).toBe(4096);
  });

  it('probes the given share of the partitions, at least one and never more than there are', () => {
    expect(annProbes(316)).toBe(190);
    expect(annProbes(1, { probeFraction: 0.01 })).toBe(1);
    expect(annProbes(10, { probeFraction: 2 })).toBe(10);
  });

  it('trains from minRows on, again once the table has grown retrainGrowth times, never with minRows 0', () => {
    const settings = { ...ANN_DEFAULTS, minRows: 1000, retrainGrowth: 2 };
    expect(annShouldTrain(999, undefined, settings)).toBe(false);
    expect(annShouldTrain(1000, undefined, settings)).toBe(true);
    expect(annShouldTrain(1999, 1000, settings)).toBe(false);
    expect(annShouldTrain(2000, 1000, settings)).toBe(true);
    expect(annShouldTrain(10 ** 6, undefined, { ...settings, minRows: 0 })).toBe(false);
  });
});
