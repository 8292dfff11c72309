import { parseDuration } from '@quarry/config';
import { parseScopes, parseToolNames, SCOPES } from '@quarry/gateway';
import { type Command, InvalidArgumentError } from 'commander';
import type { WithIdentityAdmin } from './identity-admin.js';
import type { Io } from './io.js';
import { orgListCommand } from './list-command.js';

/** A commander option parser from a parser that throws: its message becomes the option's error. */
const parsed =
  <T>(parse: (value: string) => T) =>
  (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };

function durationOption(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) throw new InvalidArgumentError(`"${value}" is not a duration like 12h, 30d or 90d.`);
  return ms;
}

/** `quarry token create|list|revoke`: personal access tokens. */
export function registerTokenCommands(
  program: Command,
  { io, withIdentityAdmin }: { io: Io; withIdentityAdmin: WithIdentityAdmin },
) {
  const token = program.command('token').description('Personal access tokens.');
  token
    .command('create')
    .description('Create a personal access token; it is printed once and only its hash is stored.')
    .requiredOption('--org <slug>', 'organization slug')
    .requiredOption('--user <email>', 'member email')
    .option('--name <name>', 'what the token is for', 'default')
    .option('--expires-in <duration>', 'lifetime, e.g. 12h, 30d', durationOption)
    .option('--scopes <scopes>', `comma-separated, of ${SCOPES.join(', ')}`, parsed(parseScopes), [
      'quarry:read',
      'quarry:write',
    ])
    .option(
      '--tools <names>',
      'comma-separated tool names: the only tools it may call (default: every tool)',
      parsed(parseToolNames),
    )
    .action(
      async (options: {
        org: string;
        user: string;
        name: string;
        expiresIn?: number;
        scopes: string[];
        tools?: string[];
      }) => {
        const created = await withIdentityAdmin((admin) =>
          admin.createToken({
            orgSlug: options.org,
            email: options.user,
            name: options.name,
            expiresInMs: options.expiresIn,
            scopes: options.scopes,
            tools: options.tools,
          }),
        );
        io.out(created.token);
        const tools = created.tools ? `, only ${created.tools.join(', ')}` : '';
        io.err(
          `Token ${created.id} for ${created.email} in ${created.org} (${created.scopes.join(' ')}${tools})${created.expiresAt ? `, expires ${created.expiresAt.toISOString()}` : ', no expiry'}. It is shown only once.`,
        );
      },
    );
  orgListCommand(
    token,
    io,
    'List tokens (never their values).',
    (options: { org?: string }) => withIdentityAdmin((admin) => admin.listTokens({ orgSlug: options.org })),
    (t) => ({
      id: t.id,
      org: t.org,
      user: t.email,
      name: t.name,
      token: t.hint,
      scopes: t.scopes.join(','),
      tools: t.tools?.join(',') ?? 'all',
      created: t.createdAt,
      lastUsed: t.lastUsedAt,
      expires: t.expiresAt,
      revoked: t.revokedAt,
    }),
  );
  token
    .command('revoke <id>')
    .description('Revoke a token; every gateway refuses it from the next request on.')
    .action(async (id: string) => {
      const revoked = await withIdentityAdmin((admin) => admin.revokeToken(id));
      io.out(`Revoked token ${revoked.id}.`);
    });
}
