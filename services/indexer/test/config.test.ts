import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from '@jest/globals';
import { kafkaSecurity, loadIndexerConfig } from '../src/index.js';
import { tempDir } from './helpers.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const dataDir = tempDir('config');
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const DB = 'postgres://indexer:secret@db.internal:5432/quarry';

describe('loadIndexerConfig', () => {
  it('reads QUARRY_OUTBOX_RETENTION as a duration and refuses anything else', () => {
    const base = { DATABASE_URL: DB, QUARRY_DATA_DIR: dataDir };
    expect(loadIndexerConfig({ ...base, QUARRY_OUTBOX_RETENTION: '12h' }).QUARRY_OUTBOX_RETENTION).toBe(43_200_000);
    expect(() => loadIndexerConfig({ ...base, QUARRY_OUTBOX_RETENTION: 'a week' })).toThrow(/QUARRY_OUTBOX_RETENTION/);
  });

  it('reads QUARRY_OUTBOX_COMPACTION_INTERVAL as a duration of at least 1s (default 10m)', () => {
    const base = { DATABASE_URL: DB, QUARRY_DATA_DIR: dataDir };
    expect(loadIndexerConfig(base).QUARRY_OUTBOX_COMPACTION_INTERVAL).toBe(600_000);
    expect(
      loadIndexerConfig({ ...base, QUARRY_OUTBOX_COMPACTION_INTERVAL: '30s' }).QUARRY_OUTBOX_COMPACTION_INTERVAL,
    ).toBe(30_000);
    expect(() => loadIndexerConfig({ ...base, QUARRY_OUTBOX_COMPACTION_INTERVAL: '500ms' })).toThrow(
      /QUARRY_OUTBOX_COMPACTION_INTERVAL/,
    );
  });

  it('has defaults for everything but the database', () => {
    const config = loadIndexerConfig({ DATABASE_URL: DB, QUARRY_DATA_DIR: dataDir });
    expect(config).toMatchObject({
      DATABASE_URL: DB,
      INDEXER_BATCH_SIZE: 500,
      HOST: '127.0.0.1',
      METRICS_PORT: 9468,
      QUARRY_OUTBOX_RELAY: true,
      QUARRY_OUTBOX_RETENTION: 7 * 86_400_000,
      LOG_LEVEL: 'info',
    });
    expect(config.KAFKA_BROKERS).toBeUndefined();
    expect(config.OPENSEARCH_URL).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
    const kafka = loadIndexerConfig({
      DATABASE_URL: DB,
      QUARRY_DATA_DIR: dataDir,
      KAFKA_BROKERS: 'k1:9092, k2:9092',
      QUARRY_OUTBOX_RELAY: 'false',
      INDEXER_BATCH_SIZE: '5',
    });
    expect(kafka).toMatchObject({
      KAFKA_BROKERS: 'k1:9092, k2:9092',
      QUARRY_OUTBOX_RELAY: false,
      INDEXER_BATCH_SIZE: 5,
    });
  });

  it('fails fast naming each bad variable, never echoing its value', () => {
    expect(() => loadIndexerConfig({})).toThrow(/DATABASE_URL/);
    const bad = () =>
      loadIndexerConfig({
        DATABASE_URL: 'not a url secret',
        INDEXER_BATCH_SIZE: '0',
        KAFKA_BROKERS: ',,',
        EMBEDDINGS_URL: 'http://emb.local/v1',
      });
    expect(bad).toThrow(/DATABASE_URL/);
    expect(bad).toThrow(/INDEXER_BATCH_SIZE/);
    expect(bad).toThrow(/KAFKA_BROKERS/);
    expect(bad).toThrow(/EMBEDDINGS_MODEL: is required when EMBEDDINGS_URL is set/);
    expect(bad).not.toThrow(/secret/);
  });

  it('refuses the embedded indexes without QUARRY_DATA_DIR: search must open the directory the indexer writes', () => {
    expect(() => loadIndexerConfig({ DATABASE_URL: DB })).toThrow(
      'QUARRY_DATA_DIR: is required while OPENSEARCH_URL and QDRANT_URL are unset',
    );
    expect(() => loadIndexerConfig({ DATABASE_URL: DB, QDRANT_URL: 'http://qdrant:6333' })).toThrow(
      'QUARRY_DATA_DIR: is required while OPENSEARCH_URL is unset',
    );
    const external = { DATABASE_URL: DB, OPENSEARCH_URL: 'http://opensearch:9200', QDRANT_URL: 'http://qdrant:6333' };
    expect(loadIndexerConfig(external).QUARRY_DATA_DIR).toBeUndefined();
  });
});

describe('Kafka TLS and SASL', () => {
  const KAFKA = { DATABASE_URL: DB, QUARRY_DATA_DIR: dataDir, KAFKA_BROKERS: 'b-1.kafka.example:9096' };
  const SCRAM = {
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: 'quarry',
    KAFKA_SASL_PASSWORD: 'kafka-secret',
  };

  it('is plaintext without authentication unless configured', () => {
    expect(kafkaSecurity(loadIndexerConfig(KAFKA))).toEqual({ tls: false });
  });

  it('turns on TLS (system CAs, or a CA bundle read at startup) and SASL', () => {
    expect(kafkaSecurity(loadIndexerConfig({ ...KAFKA, KAFKA_TLS: 'true', ...SCRAM }))).toEqual({
      tls: true,
      sasl: { mechanism: 'scram-sha-512', username: 'quarry', password: 'kafka-secret' },
    });
    const ca = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const caFile = join(dataDir, 'kafka-ca.pem');
    writeFileSync(caFile, ca);
    expect(kafkaSecurity(loadIndexerConfig({ ...KAFKA, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: caFile }))).toEqual({
      tls: { ca },
    });
  });

  it('fails at startup on a CA file it cannot read or that holds no certificate', () => {
    const missing = loadIndexerConfig({ ...KAFKA, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: join(dataDir, 'nope.pem') });
    expect(() => kafkaSecurity(missing)).toThrow(/^KAFKA_TLS_CA_FILE: cannot read .*nope\.pem \(ENOENT/);
    const notPem = join(dataDir, 'key.txt');
    writeFileSync(notPem, 'not a certificate');
    expect(() => kafkaSecurity(loadIndexerConfig({ ...KAFKA, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: notPem }))).toThrow(
      'holds no PEM certificate',
    );
  });

  it('refuses settings that cannot work together, never echoing the password', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadIndexerConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('expected the configuration to be refused');
    };
    expect(refused({ ...KAFKA, KAFKA_SASL_MECHANISM: 'scram-sha-256', KAFKA_SASL_USERNAME: 'quarry' })).toMatch(
      /set all three or none/,
    );
    expect(
      refused({
        ...KAFKA,
        KAFKA_SASL_MECHANISM: 'plain',
        KAFKA_SASL_USERNAME: 'quarry',
        KAFKA_SASL_PASSWORD: 'kafka-secret',
      }),
    ).toMatch(/KAFKA_SASL_MECHANISM: plain sends the password as is: set KAFKA_TLS=true/);
    expect(
      refused({
        ...KAFKA,
        KAFKA_SASL_MECHANISM: 'gssapi',
        KAFKA_SASL_USERNAME: 'q',
        KAFKA_SASL_PASSWORD: 'kafka-secret',
      }),
    ).toMatch(/KAFKA_SASL_MECHANISM/);
    expect(refused({ ...KAFKA, KAFKA_TLS_CA_FILE: '/etc/ca.pem' })).toMatch(/KAFKA_TLS_CA_FILE: needs KAFKA_TLS=true/);
    expect(refused({ DATABASE_URL: DB, QUARRY_DATA_DIR: dataDir, ...SCRAM })).toMatch(
      /KAFKA_SASL_PASSWORD: is only used with KAFKA_BROKERS/,
    );
    expect(refused({ DATABASE_URL: DB, QUARRY_DATA_DIR: dataDir, ...SCRAM })).not.toMatch(/kafka-secret/);
    // PLAIN over TLS is fine.
    expect(
      kafkaSecurity(
        loadIndexerConfig({
          ...KAFKA,
          KAFKA_TLS: 'true',
          KAFKA_SASL_MECHANISM: 'plain',
          KAFKA_SASL_USERNAME: 'q',
          KAFKA_SASL_PASSWORD: 'p',
        }),
      ).sasl?.mechanism,
    ).toBe('plain');
  });
});

describe('the indexer process (src/main.ts)', () => {
  // Starting the process compiles its TypeScript on the fly: ~3 s on a quiet machine, several
  // times that on a loaded CI box. The deadlines only stop a process that never exits.
  const PROCESS_MS = 90_000;
  const run = (env: Record<string, string>) =>
    promisify(execFile)(process.execPath, ['--import', '../../libs/testing/src/register-ts.mjs', 'src/main.ts'], {
      cwd: packageDir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        QUARRY_DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        METRICS_PORT: '0',
        ...env,
      },
      timeout: PROCESS_MS,
    }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        output: `${error.stdout}${error.stderr}`,
      }),
    );

  it(
    'exits with an error naming DATABASE_URL when it is missing',
    async () => {
      const { code, output } = await run({});
      expect(code).toBe(1);
      expect(output).toMatch(/^indexer: Invalid configuration:[\s\S]*DATABASE_URL/);
      expect(output).not.toMatch(/\n\s+at /); // the message, not a stack trace
    },
    PROCESS_MS + 10_000,
  );

  it(
    'exits with an error when the database cannot be reached',
    async () => {
      const { code, output } = await run({ DATABASE_URL: 'postgres://indexer:pw@127.0.0.1:1/quarry' });
      expect(code).toBe(1);
      expect(output).toContain('indexer failed to start');
      expect(output).toContain('ECONNREFUSED');
      expect(output).not.toContain(':pw@');
    },
    PROCESS_MS + 10_000,
  );
});
