/** A consumer group's committed offset for one partition, as kafkajs `admin.fetchOffsets` reports it ('-1': none yet). */
export interface CommittedOffset {
  partition: number;
  offset: string;
}

/** One partition's offsets, as kafkajs `admin.fetchTopicOffsets` reports them (`high` = next offset to be written). */
export interface PartitionWatermarks {
  partition: number;
  high: string;
  low: string;
}

/**
 * Events a consumer group has not processed yet on one topic: per partition, the high watermark
 * minus the committed offset (the next offset the group will read). A partition the group has
 * never committed counts from its low watermark (the group starts from the beginning). Offsets
 * are 64-bit, hence BigInt. A committed offset outside [low, high] (retention deleted the
 * events, or the topic was recreated) is clamped into it.
 */
export function kafkaPending(
  committed: readonly CommittedOffset[],
  watermarks: readonly PartitionWatermarks[],
): number {
  const byPartition = new Map(committed.map((c) => [c.partition, c.offset]));
  let pending = 0n;
  for (const w of watermarks) {
    const high = BigInt(w.high);
    const low = BigInt(w.low);
    const raw = byPartition.get(w.partition);
    const next = raw === undefined || BigInt(raw) < 0n ? low : BigInt(raw);
    const from = next < low ? low : next > high ? high : next;
    pending += high - from;
  }
  return Number(pending);
}
