import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '@quarry/db';
import { LEGACY_INIT, modernToolCall, rawPost, startTestGateway } from './harness.js';

// While PostgreSQL refuses connections (a restart, a failover, max_connections reached) the
// gateway cannot check a token it has not cached: it answers 503 with Retry-After and a JSON-RPC
// error that says to retry — not a 500 that reads like a bug — keeps running, and serves again
// as soon as the database is back, without a restart.

let gateway: Awaited<ReturnType<typeof startTestGateway>>;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await refuseConnections(false);
  await gateway?.close();
});

async function refuseConnections(refuse: boolean): Promise<void> {
  const { admin, name, appRole } = gateway.database;
  await sql`alter database ${sql.id(name)} connection limit ${sql.lit(refuse ? 0 : -1)}`.execute(admin);
  // Dropping the open connections also drops the revocation LISTEN, so cached tokens are no longer trusted.
  if (refuse) await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and usename = ${appRole}`.execute(admin);
}

const ping = () => {
  const { headers, body } = modernToolCall('ping', {});
  return rawPost(gateway.url, JSON.stringify(body), { authorization: `Bearer ${gateway.token}`, ...headers });
};
const initialize = () => rawPost(gateway.url, LEGACY_INIT, { authorization: `Bearer ${gateway.token}` });

async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a database outage', () => {
  it('is a 503 with Retry-After on every path, then the gateway serves again on its own', async () => {
    expect((await ping()).status).toBe(200);
    await refuseConnections(true);
    try {
      const refused = await eventually(ping, (answer) => answer.status !== 200);
      for (const answer of [refused, await initialize()]) {
        expect(answer.status).toBe(503);
        expect(answer.headers.get('retry-after')).toBe('2');
        expect(answer.json.error).toMatchObject({
          code: -32603,
          message: 'Quarry cannot reach its database right now; retry in a few seconds.',
          data: { code: 'UNAVAILABLE' },
        });
      }
    } finally {
      await refuseConnections(false);
    }
    expect((await eventually(ping, (answer) => answer.status === 200)).status).toBe(200);
    expect((await initialize()).status).toBe(200);
  });
});
