import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { createNotificationListener } from '@quarry/db';
import type { Logger } from 'pino';
import { type AccessTokenVerifier, looksLikeJwt } from '../oauth/access-tokens.js';
import type { AuthFailure, AuthResult, UnconfirmedAuth } from './auth-result.js';
import { type Found, loadToken } from './credentials.js';
import type { IdentityDatabase, Principal } from './schema.js';
import { hashesEqual, hashToken, isWellFormedToken } from './tokens.js';

/**
 * Resolves bearer tokens to principals for the HTTP layer, and keeps revocation current: a token
 * revoked, expired or deleted anywhere is refused on its very next request.
 */
export interface TokenAuthenticator {
  /** Opens the LISTEN connection that carries token changes, and starts recording last use. */
  start(): Promise<void>;
  /** The principal of a bearer token (the value after `Bearer `), or why it is refused. */
  authenticate(token: string | undefined): Promise<AuthResult>;
  /**
   * Like `authenticate`, except that a cache hit under strict revocation does not wait for the
   * revocation barrier: the principal comes back at once with the barrier's verdict pending, so a
   * caller can overlap work that has no effect (a read whose answer it withholds) with the round
   * trip. Everything else (misses, expiry, non-strict mode) is `authenticate`.
   */
  authenticateUnconfirmed(token: string | undefined): Promise<AuthResult | UnconfirmedAuth>;
  /** Writes the recorded `last_used_at` times now (they are otherwise written in batches). */
  flushLastUsed(): Promise<void>;
  /** For readiness and tests: whether revocations are being received. */
  isListening(): boolean;
  /** Writes the last-use times, closes the LISTEN connection and forgets every cached token. */
  close(): Promise<void>;
}

export interface AuthenticatorOptions {
  /** App-role connection (RLS applies: a lookup sees only the presented token's row). */
  db: Kysely<IdentityDatabase>;
  /** Connection string for the LISTEN channel that carries token changes. */
  listenConnectionString: string;
  logger: Logger;
  cacheTtlMs?: number;
  maxCacheEntries?: number;
  lastUsedFlushMs?: number;
  /**
   * true (default): a cache hit first passes the revocation barrier (one shared round trip on
   * the LISTEN connection), so a revocation committed before a request began always refuses it.
   * false: revocations still arrive by NOTIFY within milliseconds, without that round trip.
   */
  strictRevocation?: boolean;
  /**
   * Verifies OAuth access tokens (JWTs); without it only personal access tokens are accepted.
   * A verified token is then checked against its grant, cached and revoked like a token.
   */
  accessTokens?: AccessTokenVerifier;
  now?: () => number;
}

interface CacheEntry {
  principal: Principal;
  hash: Buffer;
  cachedAt: number;
}

const CHANNEL = 'quarry_identity_tokens';

/**
 * Resolves bearer tokens to principals. Hits are served from memory; a change to a token in
 * any process (revoke, expire, delete) arrives by LISTEN/NOTIFY and evicts it, and a hit first
 * passes a shared barrier on that connection, so a revocation committed before a request began
 * is always seen by it. While the LISTEN connection is down the cache is bypassed, so
 * revocation is never stale. `last_used_at` is recorded in memory and written in batches.
 */
export function createTokenAuthenticator(options: AuthenticatorOptions): TokenAuthenticator {
  const { db, logger } = options;
  const ttl = options.cacheTtlMs ?? 60_000;
  const maxEntries = options.maxCacheEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, CacheEntry>();
  const hashByTokenId = new Map<string, string>();
  const lastUsed = new Map<string, { orgId: string; at: Date }>();
  let flushTimer: NodeJS.Timeout | undefined;
  const strict = options.strictRevocation ?? true;
  /**
   * Moves on every token change heard and every loss of the LISTEN connection. A lookup keeps its
   * answer only if it did not move meanwhile: a revocation committed after the lookup read the
   * row, heard before the answer is cached, would otherwise find nothing to evict and leave a
   * revoked token in the cache.
   */
  let changes = 0;

  const listener = createNotificationListener({
    connectionString: options.listenConnectionString,
    applicationName: 'quarry-gateway-identity-listen',
    channels: [CHANNEL],
    logger,
    onNotification: (_channel, tokenId) => {
      changes++;
      if (tokenId) evictToken(tokenId);
    },
    // Revocations are missed until the connection is back: forget everything, and cache nothing
    // meanwhile (`listening()` is false), so every request looks its token up.
    onLost: () => {
      changes++;
      cache.clear();
      hashByTokenId.clear();
    },
  });
  const listening = () => listener.isListening();

  function evictToken(tokenId: string) {
    const key = hashByTokenId.get(tokenId);
    hashByTokenId.delete(tokenId);
    if (key) cache.delete(key);
  }

  function remember(key: string, entry: CacheEntry) {
    if (cache.size >= maxEntries) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) {
        const old = cache.get(oldest);
        cache.delete(oldest);
        if (old) hashByTokenId.delete(old.principal.tokenId);
      }
    }
    cache.set(key, entry);
    hashByTokenId.set(entry.principal.tokenId, key);
  }

  /**
   * Revocation barrier (the listener's): once it resolves, every revocation committed before
   * this request began has evicted its token. Requests of one tick share the round trip.
   */
  function barrier(): Promise<boolean> {
    if (!listening()) return Promise.resolve(false);
    if (!strict) return Promise.resolve(true);
    return listener.barrier();
  }

  /**
   * A credential ready to be looked up: `key` and `hash` name its cache entry (a personal access
   * token's hash; for an access token, its grant's), `load` reads it from the database, and
   * `shape` makes the request's principal from the cached one (an access token narrows its
   * grant's scopes and lifetime to its own).
   */
  type Parsed =
    | {
        ok: true;
        hash: Buffer;
        key: string;
        at: number;
        load: () => Promise<Found | undefined>;
        shape: (principal: Principal) => Principal;
      }
    | { ok: false; reason: AuthFailure };

  const asIs = (principal: Principal) => principal;

  async function parse(token: string | undefined): Promise<Parsed> {
    if (!token) return { ok: false, reason: 'missing' };
    if (isWellFormedToken(token)) {
      const hash = hashToken(token);
      return { ok: true, hash, key: hash.toString('hex'), at: now(), load: () => loadToken(db, hash), shape: asIs };
    }
    if (!options.accessTokens || !looksLikeJwt(token)) return { ok: false, reason: 'malformed' };
    const verified = await options.accessTokens.verify(token);
    if (!verified.ok) return verified;
    const { credential } = verified;
    const hash = hashToken(credential.key);
    return {
      ok: true,
      hash,
      key: hash.toString('hex'),
      at: now(),
      load: () => credential.load(db),
      shape: credential.shape,
    };
  }

  /** The cache entry for this token, if the cache may answer for it at all (the barrier aside). */
  function cachedHit({ key, hash, at }: Extract<Parsed, { ok: true }>): CacheEntry | undefined {
    const hit = cache.get(key);
    return hit && listening() && at - hit.cachedAt < ttl && hashesEqual(hit.hash, hash) ? hit : undefined;
  }

  /** Resolves true once the barrier has passed and no revocation evicted the entry meanwhile. */
  async function confirm({ key }: { key: string }, hit: CacheEntry): Promise<boolean> {
    return (await barrier()) && cache.get(key) === hit;
  }

  async function lookUp({ key, hash, at, load, shape }: Extract<Parsed, { ok: true }>): Promise<AuthResult> {
    cache.delete(key);
    const seen = changes;
    const found = await load();
    if (!found) return { ok: false, reason: 'unknown' };
    if (found.revokedAt) return { ok: false, reason: 'revoked' };
    if (listening() && seen === changes) remember(key, { principal: found.principal, hash, cachedAt: at });
    return accept(shape(found.principal), at);
  }

  const expired = (principal: Principal, at: number) =>
    principal.expiresAt !== null && principal.expiresAt.getTime() <= at;

  function accept(principal: Principal, at: number): AuthResult {
    if (expired(principal, at)) {
      evictToken(principal.tokenId);
      return { ok: false, reason: 'expired' };
    }
    noteUse(principal, at);
    return { ok: true, principal };
  }

  const noteUse = (principal: Principal, at: number) =>
    lastUsed.set(principal.tokenId, { orgId: principal.orgId, at: new Date(at) });

  async function authenticate(token: string | undefined): Promise<AuthResult> {
    const parsed = await parse(token);
    return parsed.ok ? authenticateParsed(parsed) : parsed;
  }

  async function authenticateParsed(parsed: Extract<Parsed, { ok: true }>): Promise<AuthResult> {
    const hit = cachedHit(parsed);
    if (hit && (await confirm(parsed, hit))) return accept(parsed.shape(hit.principal), parsed.at);
    return lookUp(parsed);
  }

  async function flushLastUsed(): Promise<void> {
    if (lastUsed.size === 0) return;
    const byOrg = new Map<string, Array<{ id: string; at: Date }>>();
    for (const [id, { orgId, at }] of lastUsed) {
      byOrg.set(orgId, [...(byOrg.get(orgId) ?? []), { id, at }]);
    }
    lastUsed.clear();
    for (const [orgId, rows] of byOrg) {
      const values = sql.join(rows.map((r) => sql`(${r.id}::uuid, ${r.at.toISOString()}::timestamptz)`));
      await db.transaction().execute(async (trx) => {
        await sql`select set_config('app.org_id', ${orgId}, true)`.execute(trx);
        await sql`
          update identity.personal_access_tokens t
             set last_used_at = greatest(coalesce(t.last_used_at, v.at), v.at)
            from (values ${values}) as v(id, at)
           where t.id = v.id`.execute(trx);
      });
    }
  }

  return {
    async start(): Promise<void> {
      await listener.start();
      const every = options.lastUsedFlushMs ?? 30_000;
      flushTimer = setInterval(() => {
        flushLastUsed().catch((error) => logger.warn({ err: error }, 'could not record token last use'));
      }, every);
      flushTimer.unref();
    },

    authenticate,

    /**
     * Like `authenticate`, except that a cache hit under strict revocation does not wait for the
     * barrier: the principal comes back at once with the barrier's verdict still pending, so a
     * caller can overlap work that has no effect (a read whose answer it withholds) with the
     * round trip. Everything else — misses, expiry, non-strict mode — is `authenticate`.
     */
    async authenticateUnconfirmed(token: string | undefined): Promise<AuthResult | UnconfirmedAuth> {
      const parsed = await parse(token);
      if (!parsed.ok) return parsed;
      const hit = strict ? cachedHit(parsed) : undefined;
      const principal = hit && parsed.shape(hit.principal);
      if (!hit || !principal || expired(principal, parsed.at)) return authenticateParsed(parsed);
      const confirmed = confirm(parsed, hit).then((ok) => {
        if (ok) noteUse(principal, parsed.at);
        return ok;
      });
      return { ok: true, principal, confirmed };
    },

    flushLastUsed,

    /** For readiness and tests: whether revocations are being received. */
    isListening: listening,

    async close(): Promise<void> {
      if (flushTimer) clearInterval(flushTimer);
      await flushLastUsed().catch((error) => logger.warn({ err: error }, 'could not record token last use'));
      await listener.close();
      cache.clear();
      hashByTokenId.clear();
    },
  };
}
