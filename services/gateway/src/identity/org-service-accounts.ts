import type { Kysely } from 'kysely';
import { inOrg, type Member, requireAdmin } from './member.js';
import type { IdentityDatabase } from './schema.js';
import {
  createServiceAccountAdmin,
  type IssuedServiceAccount,
  type ServiceAccountSummary,
} from './service-accounts.js';

/**
 * The organization's service accounts, from the web app (admins only): the operator code of
 * `quarry service-account` run in the organization's transaction, so another organization's
 * client id is missing (row-level security), as an unknown one is.
 */
export const orgServiceAccounts = {
  async list(db: Kysely<IdentityDatabase>, member: Member, includeRevoked = false): Promise<ServiceAccountSummary[]> {
    requireAdmin(member);
    return inOrg(db, member, (trx) => createServiceAccountAdmin(trx).list({ orgSlug: member.orgSlug, includeRevoked }));
  },
  async create(
    db: Kysely<IdentityDatabase>,
    member: Member,
    input: { name: string; scopes: string },
  ): Promise<IssuedServiceAccount> {
    requireAdmin(member);
    return inOrg(db, member, (trx) => createServiceAccountAdmin(trx).create({ orgSlug: member.orgSlug, ...input }));
  },
  async rotateSecret(db: Kysely<IdentityDatabase>, member: Member, clientId: string): Promise<IssuedServiceAccount> {
    requireAdmin(member);
    return inOrg(db, member, (trx) => createServiceAccountAdmin(trx).rotateSecret(clientId));
  },
  async revoke(db: Kysely<IdentityDatabase>, member: Member, clientId: string): Promise<ServiceAccountSummary> {
    requireAdmin(member);
    return inOrg(db, member, (trx) => createServiceAccountAdmin(trx).revoke(clientId));
  },
};
