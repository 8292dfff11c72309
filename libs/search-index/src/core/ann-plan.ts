/**
 * When the embedded vector table gets an approximate-nearest-neighbour (IVF_FLAT) index, how it
 * is partitioned and how many partitions a query probes. Pure: the LanceDB adapter asks and acts.
 * The figures come from the search benchmark (ADR 0037).
 */
export interface AnnSettings {
  /** Below this many rows the exact scan is cheap enough, and no index is built (0 = never build). */
  minRows: number;
  /** Retrain (new centroids) once the table holds this many times the rows the index was trained on. */
  retrainGrowth: number;
  /** Share of the partitions a query probes. */
  probeFraction: number;
}

export const ANN_DEFAULTS: Readonly<AnnSettings> = Object.freeze({
  minRows: 20_000,
  retrainGrowth: 2,
  probeFraction: 0.6,
});

/** Partitions of an index trained on `rows` rows: √rows (LanceDB's own rule), at most 4096. */
export function annPartitions(rows: number): number {
  return Math.min(4096, Math.max(1, Math.round(Math.sqrt(rows))));
}

/** Partitions a query probes in an index of `partitions` partitions. */
export function annProbes(partitions: number, settings: Pick<AnnSettings, 'probeFraction'> = ANN_DEFAULTS): number {
  return Math.max(1, Math.min(partitions, Math.ceil(partitions * settings.probeFraction)));
}

/**
 * Whether to (re)train the index now: `trainedRows` is what the current index was trained on
 * (undefined: no index yet). Rows appended since are folded into the existing partitions by
 * `optimize()`, but partitions drawn for a much smaller table grow lopsided, so the index is
 * trained afresh when the table has grown `retrainGrowth` times.
 */
export function annShouldTrain(rows: number, trainedRows: number | undefined, settings: AnnSettings): boolean {
  if (settings.minRows <= 0 || rows < settings.minRows) return false;
  return trainedRows === undefined || rows >= trainedRows * settings.retrainGrowth;
}
