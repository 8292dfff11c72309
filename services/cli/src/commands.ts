import { parseDuration } from '@quarry/config';
import { createDb } from '@quarry/db';
import { createIdentityAdmin, IdentityAdminError, type IdentityDatabase } from '@quarry/gateway';
import closeWithGrace from 'close-with-grace';
import { Command, InvalidArgumentError } from 'commander';
import { openAdminDatabase } from './database.js';
import { dataDirectory } from './data-dir.js';
import { APP_ROLE, migrateAll } from './migrations.js';
import { startAll } from './start.js';

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Flushed last when `quarry start` shuts down. */
  telemetry?: { shutdown(): Promise<void> };
}

function durationOption(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) throw new InvalidArgumentError(`"${value}" is not a duration like 12h, 30d or 90d.`);
  return ms;
}

function table(rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '(none)';
  const columns = Object.keys(rows[0]!);
  const cell = (v: unknown) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? '-' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

/** The `quarry` command line. Operator commands use the admin connection (see database.ts). */
export function buildCli(io: Io): Command {
  const program = new Command('quarry')
    .description('Quarry: the project manager of AI-assisted research, as a remote MCP server.')
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride()
    .showHelpAfterError();

  async function withIdentityAdmin<T>(fn: (admin: ReturnType<typeof createIdentityAdmin>) => Promise<T>): Promise<T> {
    const dir = dataDirectory(io.env);
    const database = await openAdminDatabase(dir, io.env);
    const db = createDb<IdentityDatabase>({ connectionString: database.adminUrl, applicationName: 'quarry-cli', max: 2 });
    try {
      return await fn(createIdentityAdmin(db));
    } finally {
      await db.destroy();
      await database.stop();
    }
  }

  program
    .command('start')
    .description('Run the whole system: embedded PostgreSQL (unless DATABASE_URL is set), every service, and the MCP gateway.')
    .action(async () => {
      const system = await startAll({ env: io.env, out: io.out });
      closeWithGrace({ delay: 15_000, logger: system.logger }, async ({ signal, err }) => {
        if (err) system.logger.error({ err }, 'shutting down after an error');
        else system.logger.info({ signal }, 'shutting down');
        await system.close();
        await io.telemetry?.shutdown();
      });
    });

  program
    .command('migrate')
    .description('Apply every service migration and grant the app role its privileges.')
    .action(async () => {
      const dir = dataDirectory(io.env);
      const database = await openAdminDatabase(dir, io.env);
      try {
        const password = io.env.QUARRY_APP_ROLE_PASSWORD ?? (database.embedded ? dir.secret('app-role') : undefined);
        if (!password) throw new Error('QUARRY_APP_ROLE_PASSWORD must be set: migrate (re)creates the app role services connect as.');
        const applied = await migrateAll(database.adminUrl, { role: io.env.QUARRY_APP_ROLE ?? APP_ROLE, password });
        io.out(applied.length ? `Applied ${applied.length} migration(s):\n${applied.map((m) => `  ${m}`).join('\n')}` : 'Database is up to date.');
      } finally {
        await database.stop();
      }
    });

  const org = program.command('org').description('Organizations (tenants).');
  org
    .command('create <slug>')
    .description('Create an organization.')
    .option('--name <name>', 'display name (defaults to the slug)')
    .action(async (slug: string, options: { name?: string }) => {
      const created = await withIdentityAdmin((admin) => admin.createOrg({ slug, name: options.name }));
      io.out(`Created organization ${created.slug} (${created.id}).`);
    });

  const user = program.command('user').description('Users and their memberships.');
  user
    .command('add <email>')
    .description('Create a user (or reuse one) and add them to an organization.')
    .requiredOption('--org <slug>', 'organization slug')
    .option('--name <name>', 'display name')
    .option('--role <role>', 'owner, admin or member', 'member')
    .action(async (email: string, options: { org: string; name?: string; role: 'owner' | 'admin' | 'member' }) => {
      if (!['owner', 'admin', 'member'].includes(options.role)) throw new IdentityAdminError('INVALID_ARGUMENT', `Invalid role "${options.role}": use owner, admin or member.`);
      const added = await withIdentityAdmin((admin) => admin.addUser({ email, orgSlug: options.org, name: options.name, role: options.role }));
      io.out(`Added ${added.email} (${added.name}) to ${added.org}.`);
    });

  const token = program.command('token').description('Personal access tokens.');
  token
    .command('create')
    .description('Create a personal access token; it is printed once and only its hash is stored.')
    .requiredOption('--org <slug>', 'organization slug')
    .requiredOption('--user <email>', 'member email')
    .option('--name <name>', 'what the token is for', 'default')
    .option('--expires-in <duration>', 'lifetime, e.g. 12h, 30d', durationOption)
    .action(async (options: { org: string; user: string; name: string; expiresIn?: number }) => {
      const created = await withIdentityAdmin((admin) =>
        admin.createToken({ orgSlug: options.org, email: options.user, name: options.name, expiresInMs: options.expiresIn }),
      );
      io.out(created.token);
      io.err(`Token ${created.id} for ${created.email} in ${created.org}${created.expiresAt ? `, expires ${created.expiresAt.toISOString()}` : ', no expiry'}. It is shown only once.`);
    });
  token
    .command('list')
    .description('List tokens (never their values).')
    .option('--org <slug>', 'only this organization')
    .action(async (options: { org?: string }) => {
      const tokens = await withIdentityAdmin((admin) => admin.listTokens({ orgSlug: options.org }));
      io.out(table(tokens.map((t) => ({ id: t.id, org: t.org, user: t.email, name: t.name, token: t.hint, created: t.createdAt, lastUsed: t.lastUsedAt, expires: t.expiresAt, revoked: t.revokedAt }))));
    });
  token
    .command('revoke <id>')
    .description('Revoke a token; every gateway refuses it from the next request on.')
    .action(async (id: string) => {
      const revoked = await withIdentityAdmin((admin) => admin.revokeToken(id));
      io.out(`Revoked token ${revoked.id}.`);
    });

  return program;
}

/** Runs the CLI; returns the process exit code instead of exiting, so tests can call it. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  try {
    await buildCli(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    const e = error as { code?: string; exitCode?: number; message?: string };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : (e.exitCode ?? 1);
    }
    if (error instanceof IdentityAdminError) {
      io.err(`error: ${error.message}`);
      return 1;
    }
    io.err(`error: ${e.message ?? String(error)}`);
    return 1;
  }
}
