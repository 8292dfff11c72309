import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createDb, type Kysely, sql } from '@quarry/db';
import { Kysely as KyselyClient, PostgresDialect } from 'kysely';
import pg from 'pg';
import {
  createIdentityAdmin,
  createTokenAuthenticator,
  gatewaySchemas,
  type IdentityDatabase,
  type TokenAuthenticator,
} from '@quarry/gateway';
import { createLogger } from '@quarry/telemetry';
import { createTestDatabase, type TestDatabase } from '@quarry/testing';

const logger = createLogger({ service: 'test', level: 'silent' });
let database: TestDatabase;
let app: Kysely<IdentityDatabase>;
let admin: ReturnType<typeof createIdentityAdmin>;
const started: TokenAuthenticator[] = [];

async function authenticator(
  options: { ttl?: number; db?: Kysely<IdentityDatabase>; now?: () => number; strict?: boolean } = {},
) {
  const auth = createTokenAuthenticator({
    db: options.db ?? app,
    listenConnectionString: database.appUrl,
    logger,
    cacheTtlMs: options.ttl ?? 60_000,
    lastUsedFlushMs: 60_000,
    now: options.now,
    strictRevocation: options.strict,
  });
  await auth.start();
  started.push(auth);
  return auth;
}

const until = async (check: () => Promise<boolean> | boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeAll(async () => {
  database = await createTestDatabase({ schemas: [...gatewaySchemas] });
  app = createDb<IdentityDatabase>({ connectionString: database.appUrl, max: 4 });
  admin = createIdentityAdmin(database.admin as Kysely<IdentityDatabase>);
  await admin.createOrg({ slug: 'acme' });
  await admin.addUser({ email: 'ada@acme.test', orgSlug: 'acme', name: 'Ada' });
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((a) => a.close()));
});
afterAll(async () => {
  await app?.destroy();
  await database?.drop();
});

describe('the token authenticator', () => {
  it('resolves a token to its principal', async () => {
    const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    const result = await (await authenticator()).authenticate(token);
    expect(result).toEqual({
      ok: true,
      principal: {
        tokenId: id,
        orgId: expect.any(String),
        orgSlug: 'acme',
        userId: expect.any(String),
        email: 'ada@acme.test',
        name: 'Ada',
        expiresAt: null,
        scopes: ['quarry:read', 'quarry:write'],
        tools: null,
      },
    });
  });

  it.each([
    [undefined, 'missing'],
    ['', 'missing'],
    ['Basic abc', 'malformed'],
    [`qry_${'0'.repeat(43)}`, 'unknown'],
  ])('refuses %p as %s', async (token, reason) => {
    expect(await (await authenticator()).authenticate(token)).toEqual({ ok: false, reason });
  });

  it('serves repeat requests from memory, and forgets a token the moment it is revoked elsewhere', async () => {
    const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    let queries = 0;
    const counted = new KyselyClient<IdentityDatabase>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.appUrl, max: 2 }) }),
      log: () => {
        queries += 1;
      },
    });
    const auth = await authenticator({ db: counted });
    expect((await auth.authenticate(token)).ok).toBe(true);
    const afterFirst = queries;
    expect(afterFirst).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) expect((await auth.authenticate(token)).ok).toBe(true);
    expect(queries).toBe(afterFirst);

    await admin.revokeToken(id);
    // No waiting: the very next authentication after the revocation committed refuses it.
    expect(await auth.authenticate(token)).toEqual({ ok: false, reason: 'revoked' });
    await auth.close();
    await counted.destroy();
  });

  it('never lets a cached token through after its revocation committed, even under a burst of requests', async () => {
    const auth = await authenticator();
    for (let round = 0; round < 15; round++) {
      const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
      expect((await auth.authenticate(token)).ok).toBe(true);
      const burst = Array.from({ length: 20 }, () => auth.authenticate(token));
      await admin.revokeToken(id);
      await Promise.all(burst);
      const after = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(token)));
      expect(after.every((r) => !r.ok)).toBe(true);
    }
  });

  it('can hand out a cached principal before its revocation check, with the verdict to follow', async () => {
    const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    const auth = await authenticator();
    // A miss is looked up, so there is nothing left to confirm.
    const miss = await auth.authenticateUnconfirmed(token);
    expect(miss).toEqual({ ok: true, principal: expect.objectContaining({ tokenId: id }) });
    expect('confirmed' in miss).toBe(false);
    const hit = await auth.authenticateUnconfirmed(token);
    expect(hit).toEqual({
      ok: true,
      principal: expect.objectContaining({ tokenId: id }),
      confirmed: expect.any(Promise),
    });
    expect('confirmed' in hit && (await hit.confirmed)).toBe(true);
  });

  it('never confirms a cached token whose revocation committed before the call', async () => {
    const auth = await authenticator();
    for (let round = 0; round < 15; round++) {
      const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
      expect((await auth.authenticate(token)).ok).toBe(true);
      await admin.revokeToken(id);
      const after = await Promise.all(Array.from({ length: 20 }, () => auth.authenticateUnconfirmed(token)));
      const trusted = await Promise.all(after.map(async (r) => r.ok && (!('confirmed' in r) || (await r.confirmed))));
      expect(trusted.some(Boolean)).toBe(false);
      // Refused verdicts send the caller back to authenticate, which looks the token up.
      expect(await auth.authenticate(token)).toEqual({ ok: false, reason: 'revoked' });
    }
  });

  it('without strict revocation, has no check to leave pending', async () => {
    const { token } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    const auth = await authenticator({ strict: false });
    await auth.authenticate(token);
    expect('confirmed' in (await auth.authenticateUnconfirmed(token))).toBe(false);
  });

  it('without strict revocation, still forgets a revoked token as soon as the notification arrives', async () => {
    const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    const auth = await authenticator({ strict: false });
    expect((await auth.authenticate(token)).ok).toBe(true);
    await admin.revokeToken(id);
    await until(async () => !(await auth.authenticate(token)).ok, 2000);
    expect(await auth.authenticate(token)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('stops trusting its cache while the revocation channel is down, and recovers', async () => {
    const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    const auth = await authenticator();
    expect((await auth.authenticate(token)).ok).toBe(true);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'quarry-gateway-identity-listen' and datname = current_database()`.execute(
      database.admin,
    );
    await until(() => !auth.isListening());
    // Revoked while nobody listens: the cache must not answer for it.
    await admin.revokeToken(id);
    expect(await auth.authenticate(token)).toEqual({ ok: false, reason: 'revoked' });
    await until(() => auth.isListening());
  });

  it('does not cache a lookup that a revocation overtook (committed after the read, heard before the answer)', async () => {
    const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    const witness = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    // Holds the token lookup's answer between reading the row and returning it.
    let held: Promise<void> | undefined;
    let reached!: () => void;
    const read = new Promise<void>((resolve) => (reached = resolve));
    const slow = app.withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        if (held && result.rows[0] && 'token_hash' in result.rows[0]) {
          reached();
          await held;
        }
        return result;
      },
    });
    const auth = await authenticator({ db: slow });
    expect((await auth.authenticate(witness.token)).ok).toBe(true);
    let release!: () => void;
    held = new Promise<void>((resolve) => (release = resolve));
    const overtaken = auth.authenticate(token);
    await read;
    await admin.revokeToken(id);
    // The witness's barrier passes only once the revocation's notification has been heard.
    const check = await auth.authenticateUnconfirmed(witness.token);
    expect('confirmed' in check && (await check.confirmed)).toBe(true);
    held = undefined;
    release();
    expect((await overtaken).ok).toBe(true); // it began before the revocation committed
    expect(await auth.authenticate(token)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('refuses an expired token, cached or not', async () => {
    const { token } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', expiresInMs: 60_000 });
    let now = Date.now();
    const auth = await authenticator({ now: () => now });
    expect((await auth.authenticate(token)).ok).toBe(true);
    now += 61_000;
    expect(await auth.authenticate(token)).toEqual({ ok: false, reason: 'expired' });
    // Not cached any more either: a fresh lookup says the same.
    expect(await auth.authenticate(token)).toEqual({ ok: false, reason: 'expired' });
  });

  it('records last use in batches, not on every request', async () => {
    const { token, id } = await admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test' });
    const auth = await authenticator();
    for (let i = 0; i < 5; i++) await auth.authenticate(token);
    const lastUsed = async () =>
      (
        await database.admin
          .selectFrom('identity.personal_access_tokens')
          .select('last_used_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    expect(await lastUsed()).toBeNull();
    await auth.flushLastUsed();
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    // Recording use does not evict the token from caches (it is not a validity change).
    expect((await auth.authenticate(token)).ok).toBe(true);
  });
});

describe('the identity admin creating a limited token', () => {
  it('refuses a tool name the catalogue does not have, naming it', async () => {
    await expect(
      admin.createToken({ orgSlug: 'acme', email: 'ada@acme.test', tools: ['get_plan_status', 'get_plans'] }),
    ).rejects.toThrow(/Unknown tool "get_plans"/);
  });
});
