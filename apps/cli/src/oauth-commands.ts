import type { Kysely } from '@quarry/db';
import { createOAuthAdmin, type IdentityDatabase, type OAuthAdmin } from '@quarry/gateway';
import type { Command } from 'commander';
import type { Io } from './io.js';
import { orgListCommand } from './list-command.js';
import { table } from './table.js';

interface OAuthCommandDeps {
  io: Io;
  /** The `user` command, which gets `passwd`. */
  user: Command;
  withDatabase: <T>(fn: (db: Kysely<IdentityDatabase>) => Promise<T>) => Promise<T>;
}

/** `quarry user passwd`, `quarry oauth clients|keys …` and `quarry grants …`. */
export function registerOAuthCommands(program: Command, { io, user, withDatabase }: OAuthCommandDeps) {
  const withOAuth = <T>(fn: (admin: OAuthAdmin) => Promise<T>) => withDatabase((db) => fn(createOAuthAdmin(db)));

  user
    .command('passwd <email>')
    .description('Set the password a user signs in with when an app connects through OAuth (read from stdin).')
    .action(async (email: string) => {
      if (!io.readSecret) throw new Error('No terminal to read the password from.');
      const password = await io.readSecret(`New password for ${email}: `);
      await withOAuth((admin) => admin.setPassword(email, password));
      io.out(`Password set for ${email}.`);
    });

  const oauth = program
    .command('oauth')
    .description('OAuth clients and signing keys of the embedded authorization server.');
  const clients = oauth.command('clients').description('Apps registered through OAuth (dynamic registration).');
  clients
    .command('list')
    .description('List registered clients and how many live grants each holds.')
    .action(async () => {
      const rows = await withOAuth((admin) => admin.listClients());
      io.out(
        table(
          rows.map((c) => ({
            client: c.clientId,
            name: c.name,
            redirects: c.redirectUris.join(' '),
            grants: c.grants,
          })),
        ),
      );
    });
  clients
    .command('revoke <clientId>')
    .description('Delete a client and revoke its grants; its tokens are refused from the next request on.')
    .action(async (clientId: string) => {
      const revoked = await withOAuth((admin) => admin.revokeClient(clientId));
      io.out(`Revoked client ${revoked.clientId} and ${revoked.grants} grant(s).`);
    });
  oauth
    .command('keys')
    .description('Signing keys.')
    .command('rotate')
    .description('Sign new tokens with a new key; tokens signed with the old one stay valid until they expire.')
    .action(async () => {
      const kid = await withOAuth((admin) => admin.rotateSigningKey());
      io.out(`New signing key ${kid}; gateways sign with it once restarted.`);
    });

  const grants = program.command('grants').description('What users allowed OAuth clients to do, per org.');
  orgListCommand(
    grants,
    io,
    'List grants, newest first.',
    (options: { org?: string }) => withOAuth((admin) => admin.listGrants({ orgSlug: options.org })),
    (g) => ({
      id: g.id,
      org: g.org,
      user: g.user,
      client: g.clientName ?? g.client,
      scopes: g.scopes.join(','),
      tools: g.tools?.join(',') ?? 'all',
      created: g.createdAt,
      revoked: g.revokedAt,
    }),
  );
  grants
    .command('tools <id> <names>')
    .description(
      'Limit a grant to some tools (comma-separated names), or "all" to lift the limit; applies from the next request on.',
    )
    .action(async (id: string, names: string) => {
      const updated = await withOAuth((admin) => admin.setGrantTools(id, names === 'all' ? null : names.split(',')));
      io.out(`Grant ${updated.id} may call ${updated.tools ? updated.tools.join(', ') : 'every tool'}.`);
    });
  grants
    .command('revoke <id>')
    .description('Revoke a grant: its access tokens are refused from the next request on, its refresh tokens at once.')
    .action(async (id: string) => {
      const revoked = await withOAuth((admin) => admin.revokeGrant(id));
      io.out(`Revoked grant ${revoked.id}.`);
    });
}
