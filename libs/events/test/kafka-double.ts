import type {
  KafkaBatchPayload,
  KafkaClient,
  KafkaConsumerLike,
  KafkaMessageIn,
  KafkaMessageOut,
  KafkaProducerLike,
} from '../src/index.js';

/**
 * A test double at the kafkajs object boundary only: it records what the adapter hands to
 * `producer.send` / `consumer.commitOffsets` and lets a test feed batches to `eachBatch`,
 * as kafkajs would after a fetch. Everything above this boundary is the real adapter.
 */
export class KafkaDouble implements KafkaClient {
  readonly sent: Array<{ topic: string; acks?: number; messages: KafkaMessageOut[] }> = [];
  readonly committed: Array<{ topic: string; partition: number; offset: string }> = [];
  readonly producerConfigs: unknown[] = [];
  readonly consumerConfigs: unknown[] = [];
  readonly runOptions: Array<{ autoCommit: boolean; eachBatchAutoResolve: boolean }> = [];
  /** Make the next `n` sends fail (Kafka down). */
  failSends = 0;
  private eachBatch?: (payload: KafkaBatchPayload) => Promise<void>;

  producer(config: unknown): KafkaProducerLike {
    this.producerConfigs.push(config);
    return {
      connect: async () => undefined,
      disconnect: async () => undefined,
      send: async (record) => {
        if (this.failSends > 0) {
          this.failSends--;
          throw new Error('KafkaJSConnectionError: broker unavailable');
        }
        this.sent.push(structuredClone(record));
        return [];
      },
    };
  }

  readonly subscriptions: { topics: string[]; fromBeginning?: boolean }[] = [];

  consumer(config: { groupId: string }): KafkaConsumerLike {
    this.consumerConfigs.push(config);
    return {
      connect: async () => undefined,
      disconnect: async () => undefined,
      subscribe: async (options) => {
        this.subscriptions.push(options);
      },
      run: async (options) => {
        this.runOptions.push({ autoCommit: options.autoCommit, eachBatchAutoResolve: options.eachBatchAutoResolve });
        this.eachBatch = options.eachBatch;
      },
      commitOffsets: async (offsets) => {
        this.committed.push(...offsets);
      },
    };
  }

  /** Deliver one fetched batch of a partition, as kafkajs does; returns the resolved offsets. */
  async feed(topic: string, partition: number, messages: KafkaMessageIn[]): Promise<string[]> {
    if (!this.eachBatch) throw new Error('consumer.run was not called');
    const resolved: string[] = [];
    await this.eachBatch({
      batch: { topic, partition, messages },
      resolveOffset: (offset) => resolved.push(offset),
      heartbeat: async () => undefined,
      isRunning: () => true,
      isStale: () => false,
    });
    return resolved;
  }
}

export function kafkaMessage(offset: number, out: KafkaMessageOut): KafkaMessageIn {
  return {
    offset: String(offset),
    key: Buffer.from(out.key),
    value: Buffer.from(out.value),
    headers: Object.fromEntries(Object.entries(out.headers).map(([k, v]) => [k, Buffer.from(v)])),
  };
}
