import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { trace } from '@opentelemetry/api';
import fc from 'fast-check';
import {
  createLogger,
  InMemorySpanExporter,
  REDACTED,
  scrubSecrets,
  startTelemetry,
  type Telemetry,
} from '@quarry/telemetry';

// Shaped like real tokens: `qry_` + base62 of 32 random bytes.
const TOKEN = 'qry_4kV9bT2mXq7LrZ1pW8sY3nD6hJ0cF5gA9eK2uR7tQ1w';
const OTHER_TOKEN = 'qry_Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn7Mm6L';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEiLCJvcmciOiJvcmctMSJ9.c2lnbmF0dXJlLWJ5dGVz';

/** A logger writing into memory; `output()` is everything written, `lines()` parses it. */
function capture(level: 'info' | 'debug' = 'info') {
  const chunks: string[] = [];
  const log = createLogger({ service: 'test-svc', level, destination: { write: (s: string) => void chunks.push(s) } });
  return {
    log,
    output: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('createLogger: a token never reaches a log line', () => {
  it('scrubs a token from the message and from interpolated arguments', () => {
    const { log, output, lines } = capture();
    log.info(`minted ${TOKEN} for admin`);
    log.info('revoked %s and %j', OTHER_TOKEN, { token_copy: TOKEN });
    expect(output()).not.toContain(TOKEN);
    expect(output()).not.toContain(OTHER_TOKEN);
    expect(lines()[0]?.msg).toBe(`minted qry_${REDACTED} for admin`);
  });

  it('scrubs a token from object fields, however deep, and from arrays', () => {
    const { log, output, lines } = capture();
    log.info({ note: `use ${TOKEN}`, a: { b: { c: { d: { e: [`x ${TOKEN}`] } } } } }, 'deep');
    expect(output()).not.toContain(TOKEN);
    const line = lines()[0] as { note: string; a: { b: { c: { d: { e: string[] } } } } };
    expect(line.note).toBe(`use qry_${REDACTED}`);
    expect(line.a.b.c.d.e).toEqual([`x qry_${REDACTED}`]);
  });

  it('scrubs a token from an error message and stack, whether logged directly or under err/error', () => {
    const { log, output, lines } = capture();
    const error = new Error(`token ${TOKEN} is revoked`);
    log.error(error);
    log.error({ err: error }, 'lookup failed');
    log.error({ error }, 'lookup failed again');
    log.error(new Error('wrapped', { cause: new Error(`inner ${TOKEN}`) }));
    expect(error.stack).toContain(TOKEN); // the stack really did carry it
    expect(output()).not.toContain(TOKEN);
    const [direct, underErr, underError] = lines() as Array<{
      msg: string;
      err?: { message: string; stack: string };
      error?: { message: string; stack: string };
    }>;
    expect(direct?.msg).toBe(`token qry_${REDACTED} is revoked`);
    expect(direct?.err?.stack).toContain(`token qry_${REDACTED} is revoked`);
    expect(underErr?.err?.message).toBe(`token qry_${REDACTED} is revoked`);
    expect(underError?.error?.message).toBe(`token qry_${REDACTED} is revoked`); // serialized, not `{}`
  });

  it('redacts authorization headers and identity metadata by name, whatever their value', () => {
    const { log, output, lines } = capture();
    log.info({
      req: {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'x-quarry-identity': 'signed-blob', host: 'x' },
      },
    });
    log.info({ headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    log.info({ authorization: 'opaque', metadata: { 'x-quarry-identity': 'opaque' } });
    expect(output()).not.toContain(TOKEN);
    expect(output()).not.toContain('signed-blob');
    expect(output()).not.toContain('dXNlcjpwYXNz');
    expect(output()).not.toContain('opaque');
    const [request, headers, flat] = lines() as Array<Record<string, Record<string, Record<string, string>>>>;
    expect(request?.req?.headers).toEqual({ authorization: REDACTED, 'x-quarry-identity': REDACTED, host: 'x' });
    expect(headers?.headers?.authorization).toBe(REDACTED);
    expect(flat?.authorization).toBe(REDACTED);
    expect(flat?.metadata?.['x-quarry-identity']).toBe(REDACTED);
  });

  it('redacts token and password fields by name', () => {
    const { log, output, lines } = capture();
    log.info({
      token: 'plain-secret-1',
      password: 'hunter2',
      user: { password: 'hunter3', token: 'plain-secret-2', name: 'ada' },
    });
    expect(output()).not.toMatch(/plain-secret|hunter/);
    expect(lines()[0]).toMatchObject({
      token: REDACTED,
      password: REDACTED,
      user: { password: REDACTED, token: REDACTED, name: 'ada' },
    });
  });

  it('scrubs Bearer credentials and JWTs in free text', () => {
    const { log, output, lines } = capture();
    log.warn(`upstream said: Authorization: Bearer ${TOKEN}`);
    log.warn(`retrying with bearer ${JWT}`);
    log.warn(`identity ${JWT} rejected`);
    expect(output()).not.toContain(TOKEN);
    expect(output()).not.toContain(JWT.split('.')[2]);
    expect(lines().map((l) => l.msg)).toEqual([
      `upstream said: Authorization: Bearer ${REDACTED}`,
      `retrying with bearer ${REDACTED}`,
      `identity ${REDACTED} rejected`,
    ]);
  });

  it('scrubs tokens from child logger bindings', () => {
    const { log, output } = capture();
    log.child({ request: `for ${TOKEN}` }).info('hello');
    expect(output()).toContain('hello');
    expect(output()).not.toContain(TOKEN);
  });

  it('scrubs the password of a postgres URL and keeps the rest of it', () => {
    const { log, output, lines } = capture();
    log.info(
      { databaseUrl: 'postgres://quarry:s3cr3t-pw@db.internal:5432/quarry?sslmode=require' },
      'connecting to postgresql://app:0ther-pw@127.0.0.1/app',
    );
    expect(output()).not.toMatch(/s3cr3t-pw|0ther-pw/);
    expect(lines()[0]).toMatchObject({
      databaseUrl: `postgres://quarry:${REDACTED}@db.internal:5432/quarry?sslmode=require`,
      msg: `connecting to postgresql://app:${REDACTED}@127.0.0.1/app`,
    });
  });

  it('never prints a token, wherever it is placed in text (property)', () => {
    const base62 = fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz');
    const token = fc.array(base62, { minLength: 20, maxLength: 64 }).map((chars) => `qry_${chars.join('')}`);
    fc.assert(
      fc.property(fc.string(), token, fc.string(), (before, secret, after) => {
        const { log, output } = capture();
        log.info({ field: { nested: `${before}${secret}${after}` } }, `${before}${secret}${after}`);
        log.error(new Error(`${before}${secret}${after}`));
        return !output().includes(secret);
      }),
      { numRuns: 300 },
    );
  });

  it('passes ordinary fields through untouched, with service, level label and ISO time', () => {
    const { log, lines } = capture();
    const fields = {
      tool: 'plan_create',
      duration_ms: 1.25,
      ok: true,
      count: 0,
      tags: ['a', 'b'],
      nested: { org: 'default', n: null },
    };
    log.info(fields, 'tool call done');
    const line = lines()[0] ?? {};
    expect(line).toMatchObject({ ...fields, msg: 'tool call done', service: 'test-svc', level: 'info' });
    expect(new Date(line.time as string).toISOString()).toBe(line.time);
    expect(line).not.toHaveProperty('trace_id');
  });

  it('honours the level', () => {
    const { log, lines } = capture('info');
    log.debug('hidden');
    log.info('shown');
    expect(lines().map((l) => l.msg)).toEqual(['shown']);
  });
});

describe('scrubSecrets', () => {
  it('leaves text without secrets unchanged', () => {
    const text =
      'qry_short is not a token; postgres://host/db has no password; user@example.com; http://opensearch:9200/_search?q=a@b';
    expect(scrubSecrets(text)).toBe(text);
  });

  it('scrubs the userinfo password of any engine URL (OpenSearch, Qdrant, an embeddings endpoint, Kafka)', () => {
    expect(scrubSecrets('connect ECONNREFUSED https://admin:hunter2@search.internal:9200/_bulk')).toBe(
      `connect ECONNREFUSED https://admin:${REDACTED}@search.internal:9200/_bulk`,
    );
    expect(scrubSecrets('kafka://svc:p%40ss@broker:9092')).toBe(`kafka://svc:${REDACTED}@broker:9092`);
  });
});

describe('createLogger: trace correlation', () => {
  let telemetry: Telemetry;
  const exporter = new InMemorySpanExporter();
  beforeAll(() => {
    telemetry = startTelemetry({ service: 'test-svc', spanExporter: exporter, instrument: false });
  });
  afterAll(async () => {
    await telemetry.shutdown();
  });

  it("stamps each line written inside a span with that span's trace_id and span_id", async () => {
    const { log, lines } = capture();
    const span = trace.getTracer('test').startActiveSpan('work', (active) => {
      log.info('inside');
      active.end();
      return active;
    });
    log.info('outside');
    const [inside, outside] = lines();
    expect(inside).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    expect(inside?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(outside).not.toHaveProperty('trace_id');
    await telemetry.flush();
    expect(exporter.getFinishedSpans().map((s) => s.spanContext().traceId)).toEqual([inside?.trace_id]);
  });
});
