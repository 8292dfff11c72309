import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { IdentityDatabase } from './schema.js';
import { DEFAULT_TOKEN_SCOPES, isScope, SCOPES } from './scopes.js';
import { parseToolNames } from './tool-allowlist.js';
import { generateToken } from './tokens.js';
import { inTransaction } from './transaction.js';

/** Raised for operator mistakes (unknown org, duplicate slug…); the CLI prints the message. */
export class IdentityAdminError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'ALREADY_EXISTS' | 'INVALID_ARGUMENT' | 'PERMISSION_DENIED',
    message: string,
  ) {
    super(message);
    this.name = 'IdentityAdminError';
  }
}

export interface TokenSummary {
  id: string;
  org: string;
  email: string;
  name: string;
  hint: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  scopes: string[];
  /** The tools it may call; null: every tool. */
  tools: string[] | null;
}

interface Organization {
  id: string;
  slug: string;
  name: string;
}

/** A token just created: `token` is its plaintext, shown this once and never stored. */
export interface CreatedToken {
  id: string;
  token: string;
  hint: string;
  org: string;
  email: string;
  expiresAt: Date | null;
  scopes: string[];
  tools: string[] | null;
}

/**
 * Operator-side identity management (the `quarry` CLI and first start): organizations, their
 * members and personal access tokens. It works across tenants by design; a mistake (unknown org,
 * duplicate slug, bad input) is an IdentityAdminError whose message the CLI prints as is.
 */
export interface IdentityAdmin {
  /** A new organization; the slug is 1–63 lowercase letters, digits or inner hyphens. */
  createOrg(input: { slug: string; name?: string }): Promise<Organization>;
  findOrg(slug: string): Promise<Organization | undefined>;
  /** Creates the user if new (or updates the name when given) and adds them to the org. */
  addUser(input: {
    email: string;
    orgSlug: string;
    name?: string;
    role?: 'owner' | 'admin' | 'member';
  }): Promise<{ id: string; email: string; name: string; org: string }>;
  /**
   * A token for a member of the org; only its SHA-256 is stored. Scopes default to read and
   * write; `tools` (names from the catalogue) limits it to those tools, absent: every tool.
   */
  createToken(input: {
    orgSlug: string;
    email: string;
    name?: string;
    expiresInMs?: number;
    scopes?: readonly string[];
    tools?: readonly string[];
  }): Promise<CreatedToken>;
  /** Every token (of one org when given), newest first, without anything that could be used. */
  listTokens(filter?: { orgSlug?: string }): Promise<TokenSummary[]>;
  /** Revocation takes effect on every gateway's very next request (see the notify trigger). */
  revokeToken(id: string): Promise<{ id: string; revokedAt: Date }>;
}

const SLUG = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const EMAIL = /^[^@\s]+@[^@\s]+$/;

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

function checkedTools(names: readonly string[]): string[] {
  try {
    return parseToolNames(names);
  } catch (error) {
    throw new IdentityAdminError('INVALID_ARGUMENT', (error as Error).message);
  }
}

/** A token as `quarry token list` shows it (TokenSummary), read with its org and user. */
const TOKEN_SUMMARY_COLUMNS = [
  't.id',
  'o.slug as org',
  'u.email',
  't.name',
  't.token_hint as hint',
  't.created_at as createdAt',
  't.last_used_at as lastUsedAt',
  't.expires_at as expiresAt',
  't.revoked_at as revokedAt',
  't.scopes',
  't.tools',
] as const;

/**
 * Runs on the admin connection: it works across tenants by design, unlike the services' app-role
 * connections.
 */
export function createIdentityAdmin(db: Kysely<IdentityDatabase>): IdentityAdmin {
  async function orgBySlug(slug: string) {
    const org = await db
      .selectFrom('identity.organizations')
      .select(['id', 'slug', 'name'])
      .where('slug', '=', slug)
      .executeTakeFirst();
    if (!org) throw new IdentityAdminError('NOT_FOUND', `No organization with slug "${slug}".`);
    return org;
  }

  return {
    async createOrg(input) {
      if (!SLUG.test(input.slug)) {
        throw new IdentityAdminError(
          'INVALID_ARGUMENT',
          `Invalid slug "${input.slug}": use 1–63 lowercase letters, digits or inner hyphens.`,
        );
      }
      try {
        return await db
          .insertInto('identity.organizations')
          .values({ slug: input.slug, name: input.name ?? input.slug })
          .returning(['id', 'slug', 'name'])
          .executeTakeFirstOrThrow();
      } catch (error) {
        if (isUniqueViolation(error))
          throw new IdentityAdminError('ALREADY_EXISTS', `Organization "${input.slug}" already exists.`);
        throw error;
      }
    },

    async findOrg(slug) {
      return db
        .selectFrom('identity.organizations')
        .select(['id', 'slug', 'name'])
        .where('slug', '=', slug)
        .executeTakeFirst();
    },

    async addUser(input) {
      const email = input.email.trim().toLowerCase();
      if (!EMAIL.test(email)) throw new IdentityAdminError('INVALID_ARGUMENT', `Invalid email "${input.email}".`);
      const org = await orgBySlug(input.orgSlug);
      return inTransaction(db, async (trx) => {
        const user = await trx
          .insertInto('identity.users')
          .values({ email, name: input.name ?? email.split('@')[0]! })
          .onConflict((oc) => oc.column('email').doUpdateSet(input.name ? { name: input.name } : { email }))
          .returning(['id', 'email', 'name'])
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('identity.memberships')
          .values({ org_id: org.id, user_id: user.id, role: input.role ?? 'member' })
          .onConflict((oc) =>
            oc
              .columns(['org_id', 'user_id'])
              .doUpdateSet({ role: input.role ?? sql<'member'>`identity.memberships.role` }),
          )
          .execute();
        return { ...user, org: org.slug };
      });
    },

    async createToken(input) {
      const org = await orgBySlug(input.orgSlug);
      const member = await db
        .selectFrom('identity.memberships as m')
        .innerJoin('identity.users as u', 'u.id', 'm.user_id')
        .select(['u.id', 'u.email'])
        .where('m.org_id', '=', org.id)
        .where('u.email', '=', input.email.trim().toLowerCase())
        .executeTakeFirst();
      if (!member) throw new IdentityAdminError('NOT_FOUND', `${input.email} is not a member of "${org.slug}".`);
      const scopes = [...(input.scopes ?? DEFAULT_TOKEN_SCOPES)];
      const unknown = scopes.find((s) => !isScope(s));
      if (unknown !== undefined || scopes.length === 0)
        throw new IdentityAdminError('INVALID_ARGUMENT', `Invalid scopes: use one or more of ${SCOPES.join(', ')}.`);
      const tools = input.tools === undefined ? null : checkedTools(input.tools);
      const { token, hash, hint } = generateToken();
      const expiresAt = input.expiresInMs === undefined ? null : new Date(Date.now() + input.expiresInMs);
      const row = await db
        .insertInto('identity.personal_access_tokens')
        .values({
          org_id: org.id,
          user_id: member.id,
          name: input.name ?? 'default',
          token_hash: hash,
          token_hint: hint,
          expires_at: expiresAt,
          scopes,
          tools,
        })
        .returning(['id', 'expires_at', 'scopes', 'tools'])
        .executeTakeFirstOrThrow();
      return {
        id: row.id,
        token,
        hint,
        org: org.slug,
        email: member.email,
        expiresAt: row.expires_at,
        scopes: row.scopes,
        tools: row.tools,
      };
    },

    async listTokens(filter = {}) {
      let query = db
        .selectFrom('identity.personal_access_tokens as t')
        .innerJoin('identity.organizations as o', 'o.id', 't.org_id')
        .innerJoin('identity.users as u', 'u.id', 't.user_id')
        .select(TOKEN_SUMMARY_COLUMNS)
        .orderBy('t.created_at', 'desc');
      if (filter.orgSlug) query = query.where('o.slug', '=', (await orgBySlug(filter.orgSlug)).slug);
      return query.execute();
    },

    async revokeToken(id) {
      if (!/^[0-9a-f-]{36}$/i.test(id))
        throw new IdentityAdminError(
          'INVALID_ARGUMENT',
          `"${id}" is not a token id (a UUID from \`quarry token list\`).`,
        );
      const row = await db
        .updateTable('identity.personal_access_tokens')
        .set({ revoked_at: sql<Date>`coalesce(revoked_at, now())` })
        .where('id', '=', id)
        .returning(['id', 'revoked_at'])
        .executeTakeFirst();
      if (!row) throw new IdentityAdminError('NOT_FOUND', `No token with id ${id}.`);
      // coalesce(…, now()): never null once revoked.
      return { id: row.id, revokedAt: row.revoked_at! };
    },
  };
}
