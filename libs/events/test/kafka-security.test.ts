import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:net';
import type { KafkaConfig } from 'kafkajs';
import { kafkaClientConfig } from '../src/index.js';

// How the indexer's kafkajs client reaches the brokers: plaintext by default, TLS (system CAs or
// a CA bundle) and SASL (PLAIN, SCRAM) when configured. The config object is what kafkajs
// receives; the first bytes a real kafkajs client sends to a listening socket show it is applied.

describe('kafkaClientConfig', () => {
  it('is plaintext without authentication by default', () => {
    expect(kafkaClientConfig(' k1:9092, k2:9092 ,', 'quarry-indexer')).toEqual({
      clientId: 'quarry-indexer',
      brokers: ['k1:9092', 'k2:9092'],
    });
  });

  it('turns on TLS with the system CAs, or with the given CA bundle only', () => {
    expect(kafkaClientConfig('k1:9093', 'q', { tls: true })).toEqual({
      clientId: 'q',
      brokers: ['k1:9093'],
      ssl: true,
    });
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(kafkaClientConfig('k1:9093', 'q', { tls: { ca } })).toEqual({
      clientId: 'q',
      brokers: ['k1:9093'],
      ssl: { ca: [ca] },
    });
  });

  it('passes SASL credentials as kafkajs expects them', () => {
    const sasl = { mechanism: 'scram-sha-512', username: 'quarry', password: 's3cret' } as const;
    expect(kafkaClientConfig('k1:9093', 'q', { tls: true, sasl })).toEqual({
      clientId: 'q',
      brokers: ['k1:9093'],
      ssl: true,
      sasl,
    });
    expect(kafkaClientConfig('k1:9093', 'q', { tls: true, sasl }).sasl).not.toBe(sasl); // a copy: nothing else is passed along
  });
});

describe('a real kafkajs client built from it', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** The first bytes the client writes to a broker address, before giving up on it. */
  async function firstBytes(config: ReturnType<typeof kafkaClientConfig>): Promise<Buffer> {
    const received = new Promise<Buffer>((resolve) => {
      server = createServer((socket) => {
        socket.once('data', (data) => {
          resolve(data);
          socket.destroy();
        });
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server!.address() as { port: number };
    const moduleName = 'kafkajs';
    const { Kafka, logLevel } = (await import(moduleName)) as typeof import('kafkajs');
    const kafka = new Kafka({
      ...config,
      brokers: [`127.0.0.1:${port}`],
      retry: { retries: 0 },
      connectionTimeout: 1000,
      logLevel: logLevel.NOTHING,
    } as KafkaConfig);
    const producer = kafka.producer();
    const connecting = producer.connect().catch(() => undefined);
    const bytes = await received;
    await connecting;
    await producer.disconnect().catch(() => undefined);
    return bytes;
  }

  it('speaks Kafka in the clear by default: an ApiVersions request first', async () => {
    const bytes = await firstBytes(kafkaClientConfig('unused:1', 'quarry-indexer'));
    expect(bytes.readInt16BE(4)).toBe(18); // request header: int32 size, int16 api key (18 = ApiVersions)
  });

  it('with TLS, opens with a TLS handshake instead', async () => {
    const bytes = await firstBytes(kafkaClientConfig('unused:1', 'quarry-indexer', { tls: true }));
    expect([bytes[0], bytes[5]]).toEqual([0x16, 0x01]); // TLS record: handshake; message: ClientHello
  });
});
