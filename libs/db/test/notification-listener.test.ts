import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, connect as connectTcp, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { createNotificationListener, type NotificationListener, type NotificationListenerOptions } from '@quarry/db';
import { freshDatabase, onCluster, until, uniqueName, type FreshDatabase } from './support.js';

// The one LISTEN connection that NOTIFY-kept caches, long-polls and change feeds rely on, against
// a real PostgreSQL: delivery, a connection the server terminates (onLost, reconnect with
// backoff, onConnected, delivery again), close(), the barrier, and peers that never answer.

let database: FreshDatabase;
let writer: pg.Client;
const started: NotificationListener[] = [];

/** What a listener told its caller, in order. */
interface Heard {
  events: string[];
  warnings: Array<{ message: string; attempt?: number; at: number; error: string }>;
}

function listen(overrides: Partial<NotificationListenerOptions> = {}) {
  const heard: Heard = { events: [], warnings: [] };
  const applicationName = uniqueName('listener');
  const listener = createNotificationListener({
    connectionString: database.url,
    applicationName,
    channels: ['listener_test', 'listener_other'],
    onNotification: (channel, payload) => heard.events.push(`${channel}:${payload}`),
    onConnected: () => heard.events.push('connected'),
    onLost: () => heard.events.push('lost'),
    logger: {
      info: () => undefined,
      warn: (details: { attempt?: number; err?: Error }, message) =>
        heard.warnings.push({ message, attempt: details.attempt, at: Date.now(), error: String(details.err) }),
    },
    backoff: { minMs: 20, maxMs: 200 },
    ...overrides,
  });
  started.push(listener);
  return { listener, heard, applicationName };
}

const notify = (payload: string, channel = 'listener_test') =>
  writer.query('select pg_notify($1, $2)', [channel, payload]);

async function backends(applicationName: string): Promise<number[]> {
  const { rows } = await writer.query<{ pid: number }>(
    'select pid from pg_stat_activity where application_name = $1 and datname = current_database()',
    [applicationName],
  );
  return rows.map((row) => row.pid);
}

const terminate = (applicationName: string) =>
  writer.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [applicationName]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  database = await freshDatabase();
  writer = new pg.Client({ connectionString: database.url });
  await writer.connect();
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((listener) => listener.close()));
});

afterAll(async () => {
  await writer?.end();
  await database?.drop();
});

describe('createNotificationListener', () => {
  it('delivers the notifications of its channels, in commit order, once connected', async () => {
    const { listener, heard } = listen();
    expect(listener.isListening()).toBe(false);
    await listener.start();
    expect(listener.isListening()).toBe(true);
    expect(heard.events).toEqual(['connected']);
    await notify('a');
    await notify('b', 'listener_other');
    await notify('c', 'not_listened_to');
    await notify('');
    expect(await listener.barrier()).toBe(true);
    expect(heard.events).toEqual(['connected', 'listener_test:a', 'listener_other:b', 'listener_test:']);
  });

  it('when the server terminates its connection: onLost, a new connection, onConnected, and notifications again', async () => {
    const { listener, heard, applicationName } = listen();
    await listener.start();
    const [before] = await backends(applicationName);
    await terminate(applicationName);
    await until(() => heard.events.includes('lost'));
    await until(() => listener.isListening());
    expect(heard.events).toEqual(['connected', 'lost', 'connected']);
    const after = await backends(applicationName);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toBe(before);
    await notify('after');
    expect(await listener.barrier()).toBe(true);
    expect(heard.events).toEqual(['connected', 'lost', 'connected', 'listener_test:after']);
  });

  it('while the database refuses connections, retries with growing delays up to the cap, then comes back', async () => {
    const { listener, heard, applicationName } = listen({ backoff: { minMs: 50, maxMs: 400 } });
    await listener.start();
    const name = new URL(database.url).pathname.slice(1);
    await onCluster(process.env.QUARRY_TEST_PG_URL!, (c) => c.query(`alter database ${name} allow_connections false`));
    try {
      await terminate(applicationName);
      await until(() => heard.events.includes('lost'));
      expect(listener.isListening()).toBe(false);
      expect(await listener.barrier()).toBe(false); // nothing can be vouched for while deaf
      await sleep(2_000);
    } finally {
      await onCluster(process.env.QUARRY_TEST_PG_URL!, (c) => c.query(`alter database ${name} allow_connections true`));
    }
    const failures = heard.warnings.filter((w) => w.attempt !== undefined);
    expect(failures.length).toBeGreaterThanOrEqual(4);
    expect(failures.map((f) => f.attempt)).toEqual(failures.map((_, i) => i + 1));
    expect(failures[0]!.error).toMatch(/not currently accepting connections/);
    // The delay after the n-th failure is min(50 * 2^(n-1) * [1, 2), 400) ms: never a spin.
    const gaps = failures.slice(1).map((f, i) => f.at - failures[i]!.at);
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual(Math.min(50 * 2 ** i, 400) - 5));
    expect(failures.length).toBeLessThan(12);

    await until(() => listener.isListening());
    expect(heard.events).toEqual(['connected', 'lost', 'connected']);
    await notify('back');
    expect(await listener.barrier()).toBe(true);
    expect(heard.events.at(-1)).toBe('listener_test:back');
  });

  it('close() stops reconnecting, also in the middle of a backoff', async () => {
    const { listener, heard, applicationName } = listen({ backoff: { minMs: 300, maxMs: 300 } });
    await listener.start();
    const name = new URL(database.url).pathname.slice(1);
    await onCluster(process.env.QUARRY_TEST_PG_URL!, (c) => c.query(`alter database ${name} allow_connections false`));
    let attempts: number;
    try {
      await terminate(applicationName);
      await until(() => heard.warnings.some((w) => w.attempt === 1)); // now waiting to retry
      await listener.close();
      attempts = heard.warnings.length;
    } finally {
      await onCluster(process.env.QUARRY_TEST_PG_URL!, (c) => c.query(`alter database ${name} allow_connections true`));
    }
    await sleep(1_000); // three retry periods, the database accepting connections again
    expect(heard.warnings).toHaveLength(attempts);
    expect(heard.events).toEqual(['connected', 'lost']);
    expect(listener.isListening()).toBe(false);
    expect(await backends(applicationName)).toEqual([]);
  });

  it('close() ends its connection and hears nothing more', async () => {
    const { listener, heard, applicationName } = listen();
    await listener.start();
    await listener.close();
    await listener.close(); // idempotent
    expect(listener.isListening()).toBe(false);
    expect(await listener.barrier()).toBe(false);
    await notify('late');
    for (let i = 0; i < 100 && (await backends(applicationName)).length > 0; i++) await sleep(20);
    expect(await backends(applicationName)).toEqual([]);
    expect(heard.events).toEqual(['connected']);
    await expect(listener.start()).rejects.toThrow(/started once/);
  });

  it('keeps listening when a callback throws', async () => {
    const { listener, heard } = listen({
      onNotification: (_channel, payload) => {
        if (payload === 'bad') throw new Error('caller bug');
        heard.events.push(payload);
      },
    });
    await listener.start();
    await notify('bad');
    await notify('good');
    expect(await listener.barrier()).toBe(true);
    expect(heard.events).toEqual(['connected', 'good']);
    expect(heard.warnings.map((w) => w.message)).toEqual(['the LISTEN onNotification callback threw']);
  });

  it('start() fails fast when the database cannot be reached, and does not retry', async () => {
    const { listener, heard } = listen({ connectionString: 'postgres://nobody:x@127.0.0.1:1/none' });
    await expect(listener.start()).rejects.toThrow(/ECONNREFUSED/);
    await sleep(200);
    expect(heard.events).toEqual([]);
    expect(heard.warnings).toEqual([]);
  });
});

describe('a peer that accepts TCP but never answers', () => {
  /** A TCP proxy to the test cluster that can turn into a black hole (accepts, never answers). */
  let proxy: Server;
  let blackHole = false;
  const sockets = new Set<Socket>();
  /** Connections through the proxy: freezing one stops its bytes both ways, its sockets left open. */
  const pairs = new Set<{ client: Socket; server: Socket }>();
  let proxyUrl: string;

  beforeAll(async () => {
    const target = new URL(database.url);
    proxy = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
      if (blackHole) return;
      const upstream = connectTcp(Number(target.port), target.hostname);
      sockets.add(upstream);
      upstream.on('error', () => socket.destroy());
      upstream.on('close', () => sockets.delete(upstream));
      socket.pipe(upstream).pipe(socket);
      pairs.add({ client: socket, server: upstream });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as { port: number }).port;
    proxyUrl = Object.assign(new URL(database.url), { port: String(port) }).toString();
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => proxy?.close(resolve));
  });

  it('start() gives up after the connect timeout', async () => {
    blackHole = true;
    try {
      const { listener } = listen({ connectionString: proxyUrl, connectTimeoutMs: 300 });
      const began = Date.now();
      await expect(listener.start()).rejects.toThrow(/timeout/i);
      expect(Date.now() - began).toBeLessThan(5_000);
    } finally {
      blackHole = false;
    }
  });

  it('a reconnect attempt times out and the next one goes on, until the peer answers again', async () => {
    const { listener, heard } = listen({ connectionString: proxyUrl, connectTimeoutMs: 300 });
    await listener.start();
    blackHole = true;
    for (const socket of sockets) socket.destroy(); // the path to the server breaks
    try {
      await until(() => heard.warnings.filter((w) => /timeout/i.test(w.error)).length >= 2);
    } finally {
      blackHole = false;
    }
    await until(() => listener.isListening());
    expect(heard.events).toEqual(['connected', 'lost', 'connected']);
    await notify('through the proxy');
    expect(await listener.barrier()).toBe(true);
    expect(heard.events.at(-1)).toBe('listener_test:through the proxy');
  });

  it('a barrier the connection never answers gives the connection up, and a new one answers', async () => {
    const { listener, heard } = listen({ connectionString: proxyUrl, barrierTimeoutMs: 300 });
    await listener.start();
    // The path goes silent without closing (a peer that vanished): nothing more gets through.
    for (const { client, server } of pairs) {
      client.unpipe(server);
      server.unpipe(client);
      client.pause();
      server.pause();
    }
    pairs.clear();
    const began = Date.now();
    expect(await listener.barrier()).toBe(false);
    expect(Date.now() - began).toBeLessThan(5_000);
    expect(heard.events).toEqual(['connected', 'lost']);
    await until(() => listener.isListening());
    await notify('on the new path');
    expect(await listener.barrier()).toBe(true);
    expect(heard.events).toEqual(['connected', 'lost', 'connected', 'listener_test:on the new path']);
  });
});
