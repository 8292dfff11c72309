import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startAll } from '@quarry/cli';
import { findRunningEmbeddedPostgres } from '@quarry/db';
import { serviceTransportEnv } from '@quarry/testing';

const dataDir = mkdtempSync(join(tmpdir(), 'quarry-start-'));
const env = { QUARRY_DATA_DIR: dataDir, PORT: '0', ...serviceTransportEnv() };

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function ping(url: string, token: string, era: 'legacy' | 'modern') {
  const client = new Client(
    { name: 'start-test', version: '1' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }));
  try {
    return (await client.callTool({ name: 'ping', arguments: {} })).structuredContent;
  } finally {
    await client.close();
  }
}

describe('quarry start (npm start) on embedded defaults', () => {
  it('first start: embedded PostgreSQL, migrations, default org/user/token saved 0600 and printed once with a ready claude line', async () => {
    const out: string[] = [];
    const system = await startAll({ env, out: (l) => out.push(l), logLevel: 'silent' });
    try {
      const printed = out.join('\n');
      const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
      expect(token).toMatch(/^qry_[0-9A-Za-z]{43}$/);
      expect(statSync(join(dataDir, 'dev-token')).mode & 0o777).toBe(0o600);
      expect(printed).toContain(`MCP endpoint: ${system.url}`);
      expect(printed).toContain(`Web app: ${system.url.replace(/\/mcp$/, '/app')}  (sign in as admin@localhost`);
      expect(printed).toContain(
        `claude mcp add --transport http quarry ${system.url} --header "Authorization: Bearer ${token}"`,
      );
      expect(system.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      // OAuth sign-in needs a password: generated once, kept 0600, its file named (never printed).
      const password = readFileSync(join(dataDir, 'admin-password'), 'utf8').trim();
      expect(password.length).toBeGreaterThanOrEqual(20);
      expect(statSync(join(dataDir, 'admin-password')).mode & 0o777).toBe(0o600);
      expect(printed).toContain(`sign in as admin@localhost with the password in ${join(dataDir, 'admin-password')}`);
      expect(printed).not.toContain(password);
      for (const era of ['legacy', 'modern'] as const) {
        expect(await ping(system.url, token, era)).toMatchObject({
          message: 'Connected to Quarry as Admin (admin@localhost).',
          orgSlug: 'default',
        });
      }
    } finally {
      await system.close();
    }
  }, 60_000);

  it('second start reuses the data: same token, nothing printed twice', async () => {
    const out: string[] = [];
    const system = await startAll({ env, out: (l) => out.push(l), logLevel: 'silent' });
    try {
      const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
      expect(out.join('\n')).not.toContain(token);
      expect(out.join('\n')).toContain('Your token is in');
      expect(await ping(system.url, token, 'modern')).toMatchObject({ userEmail: 'admin@localhost' });
    } finally {
      await system.close();
    }
  }, 60_000);

  it('heals when its embedded PostgreSQL is killed: restarted on the same port, every service reconnects, data intact', async () => {
    const fatal: Error[] = [];
    const system = await startAll({ env, out: () => {}, logLevel: 'silent', onFatal: (e) => fatal.push(e) });
    try {
      const token = readFileSync(join(dataDir, 'dev-token'), 'utf8').trim();
      expect(await ping(system.url, token, 'modern')).toMatchObject({ userEmail: 'admin@localhost' });
      const before = (await findRunningEmbeddedPostgres(join(dataDir, 'postgres')))!;
      process.kill(before.pid, 'SIGKILL'); // as the OOM killer would
      // The killed server's backends can still answer for a moment, so wait for the new server
      // (a new pid in its lock file) and then for a call that it serves.
      let answer: unknown;
      let after: Awaited<ReturnType<typeof findRunningEmbeddedPostgres>>;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
        after = await findRunningEmbeddedPostgres(join(dataDir, 'postgres'));
        if (!after || after.pid === before.pid) continue;
        answer = await ping(system.url, token, 'modern').catch(() => undefined);
        if (answer) break;
      }
      expect(answer).toMatchObject({ userEmail: 'admin@localhost' });
      after = (await findRunningEmbeddedPostgres(join(dataDir, 'postgres')))!;
      expect(after.pid).not.toBe(before.pid);
      expect(after.port).toBe(before.port);
      expect(fatal).toEqual([]);
    } finally {
      await system.close();
    }
    expect(await findRunningEmbeddedPostgres(join(dataDir, 'postgres'))).toBeUndefined();
  }, 90_000);

  it('a start that cannot listen fails with the reason and stops what it had started (PostgreSQL too)', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const busyPort = (blocker.address() as AddressInfo).port;
    try {
      await expect(
        startAll({ env: { ...env, PORT: String(busyPort) }, out: () => {}, logLevel: 'silent' }),
      ).rejects.toThrow(
        `127.0.0.1:${busyPort} is already in use (EADDRINUSE): is Quarry already running? Stop it, or start on another port: PORT=${busyPort + 1} npm start`,
      );
    } finally {
      blocker.close();
    }
    // The embedded cluster is down, and the next start works at once.
    expect(await findRunningEmbeddedPostgres(join(dataDir, 'postgres'))).toBeUndefined();
    const system = await startAll({ env, out: () => {}, logLevel: 'silent' });
    await system.close();
  }, 60_000);
});
