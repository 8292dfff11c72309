import type { Kysely } from 'kysely';
import { recordAuthEvent } from '../oauth/audit.js';
import { type CreatedToken, createIdentityAdmin, IdentityAdminError, type TokenSummary } from './admin.js';
import { inOrg, type Member } from './member.js';
import type { IdentityDatabase } from './schema.js';

/**
 * A person's own personal access tokens in one organization, from the web app: the operator
 * code of `quarry token` run inside the organization's transaction (row-level security), limited
 * to the person's own tokens. Another person's or organization's token is missing.
 */
export async function listOwnTokens(db: Kysely<IdentityDatabase>, member: Member): Promise<TokenSummary[]> {
  return inOrg(db, member, async (trx) =>
    (await createIdentityAdmin(trx).listTokens({ orgSlug: member.orgSlug })).filter((t) => t.email === member.email),
  );
}

/** A new token of the member's; its plaintext is in the result once and never stored. */
export async function createOwnToken(
  db: Kysely<IdentityDatabase>,
  member: Member,
  input: { name: string; scopes: readonly string[]; tools?: readonly string[]; expiresInMs?: number },
): Promise<CreatedToken> {
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200)
    throw new IdentityAdminError('INVALID_ARGUMENT', 'Name the token (1 to 200 characters).');
  // An admin token is the organization's admins' to hold.
  if (input.scopes.includes('quarry:admin') && member.role === 'member')
    throw new IdentityAdminError('PERMISSION_DENIED', 'Only owners and admins may create a token with quarry:admin.');
  return inOrg(db, member, async (trx) => {
    const created = await createIdentityAdmin(trx).createToken({
      orgSlug: member.orgSlug,
      email: member.email,
      name,
      scopes: input.scopes,
      tools: input.tools,
      expiresInMs: input.expiresInMs,
    });
    await recordAuthEvent(trx, {
      event: 'token_created',
      email: member.email,
      userId: member.userId,
      orgSlug: member.orgSlug,
      detail: { token: created.id, scopes: created.scopes, tools: created.tools },
    });
    return created;
  });
}

/** Revokes one of the member's own tokens; refused from the next request on by every gateway. */
export async function revokeOwnToken(db: Kysely<IdentityDatabase>, member: Member, id: string): Promise<void> {
  await inOrg(db, member, async (trx) => {
    const admin = createIdentityAdmin(trx);
    const own = (await admin.listTokens({ orgSlug: member.orgSlug })).find(
      (t) => t.id === id && t.email === member.email,
    );
    if (!own) throw new IdentityAdminError('NOT_FOUND', 'No such token.');
    await admin.revokeToken(id);
    await recordAuthEvent(trx, {
      event: 'token_revoked',
      email: member.email,
      userId: member.userId,
      orgSlug: member.orgSlug,
      detail: { token: id },
    });
  });
}
