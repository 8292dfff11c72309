import type { Kysely } from '@quarry/db';
import {
  createServiceAccountAdmin,
  type IdentityDatabase,
  type IssuedServiceAccount,
  type ServiceAccountAdmin,
} from '@quarry/gateway';
import type { Command } from 'commander';
import type { Io } from './io.js';
import { orgListCommand } from './list-command.js';

interface ServiceAccountCommandDeps {
  io: Io;
  withDatabase: <T>(fn: (db: Kysely<IdentityDatabase>) => Promise<T>) => Promise<T>;
}

function printIssued(io: Io, issued: IssuedServiceAccount, verb: string): void {
  io.out(`${verb} service account ${issued.name} in ${issued.org} (scopes: ${issued.scopes.join(' ')}).`);
  io.out(`client id:     ${issued.clientId}`);
  io.out(`client secret: ${issued.clientSecret}`);
  io.out('The secret is shown this once. Exchange both for a token at <QUARRY_PUBLIC_URL>/oauth/token');
  io.out('(grant_type=client_credentials, resource=urn:quarry:grpc) and call the services with it.');
}

/** `quarry service-account create|list|rotate|revoke`: programs that call the gRPC services directly. */
export function registerServiceAccountCommands(program: Command, { io, withDatabase }: ServiceAccountCommandDeps) {
  const withAdmin = <T>(fn: (admin: ServiceAccountAdmin) => Promise<T>) =>
    withDatabase((db) => fn(createServiceAccountAdmin(db)));
  const accounts = program
    .command('service-account')
    .description("Programs of one org that call Quarry's gRPC services directly (OAuth client credentials).");
  accounts
    .command('create <name>')
    .description('Create a service account in an org and print its client id and secret (shown once).')
    .requiredOption('--org <slug>', 'the organization it acts in')
    .option('--scopes <scopes>', 'what it may do: quarry:read, quarry:write, quarry:admin', 'quarry:read')
    .action(async (name: string, options: { org: string; scopes: string }) => {
      const issued = await withAdmin((admin) => admin.create({ orgSlug: options.org, name, scopes: options.scopes }));
      printIssued(io, issued, 'Created');
    });
  orgListCommand(
    accounts,
    io,
    'List service accounts (active ones unless --all).',
    (options: { org?: string; all?: boolean }) =>
      withAdmin((admin) => admin.list({ orgSlug: options.org, includeRevoked: options.all })),
    (a) => ({
      client: a.clientId,
      org: a.org,
      name: a.name,
      scopes: a.scopes.join(','),
      secret: a.secretHint,
      created: a.createdAt,
      rotated: a.secretRotatedAt,
      revoked: a.revokedAt,
    }),
  ).option('--all', 'include revoked accounts');
  accounts
    .command('rotate <clientId>')
    .description('Issue a new secret; the old one is refused at once (tokens it got expire within minutes).')
    .action(async (clientId: string) => {
      printIssued(io, await withAdmin((admin) => admin.rotateSecret(clientId)), 'Rotated the secret of');
    });
  accounts
    .command('revoke <clientId>')
    .description('Revoke a service account: no new token from now on; the ones it holds expire within minutes.')
    .action(async (clientId: string) => {
      const revoked = await withAdmin((admin) => admin.revoke(clientId));
      io.out(`Revoked service account ${revoked.name} (${revoked.clientId}) in ${revoked.org}.`);
    });
}
