import { parseDuration } from '@quarry/config';
import { createDatabaseIfMissing, createDb, type Kysely, sql } from '@quarry/db';
import {
  createIdentityAdmin,
  IdentityAdminError,
  type IdentityAdmin,
  type IdentityDatabase,
  parseScopes,
  parseToolNames,
  SCOPES,
} from '@quarry/gateway';
import closeWithGrace from 'close-with-grace';
import { Command, InvalidArgumentError } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openAdminDatabase } from './database.js';
import { dataDirectory } from './data-dir.js';
import { orgListCommand } from './list-command.js';
import { migrateAll } from './migrations.js';
import { registerImportCommand } from './import-command.js';
import { reindex } from './reindex.js';
import { runResearchSession } from './smoke.js';
import { serviceRoles } from './roles.js';
import { startAll, type RunningQuarry } from './start.js';
import { registerOAuthCommands } from './oauth-commands.js';
import { registerServiceAccountCommands } from './service-account-commands.js';
import type { Io } from './io.js';

/** How long `quarry start` drains after a fatal error before it exits anyway. */
const FATAL_CLOSE_MS = 10_000;

const MEDIA_TYPES = ['conversation', 'markdown', 'html', 'word', 'excel', 'powerpoint'] as const;

function scopesOption(value: string): string[] {
  try {
    return parseScopes(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function toolsOption(value: string): string[] {
  try {
    return parseToolNames(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function durationOption(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) throw new InvalidArgumentError(`"${value}" is not a duration like 12h, 30d or 90d.`);
  return ms;
}

/** The token `quarry smoke` and `quarry import` use: the file given, QUARRY_TOKEN, or the first-start token of `quarry start`. */
function smokeToken(file: string | undefined, env: Io['env']): string {
  if (file) return readFileSync(file, 'utf8').trim();
  if (env.QUARRY_TOKEN) return env.QUARRY_TOKEN;
  const devToken = join(resolve(env.QUARRY_DATA_DIR ?? '.quarry'), 'dev-token');
  if (existsSync(devToken)) return readFileSync(devToken, 'utf8').trim();
  throw new Error(`No token: pass --token-file, set QUARRY_TOKEN, or start Quarry once (it writes ${devToken}).`);
}

/** The `quarry` command line. Operator commands use the admin connection (see database.ts). */
function buildCli(io: Io): Command {
  const program = new Command('quarry')
    .description('Quarry: the project manager of AI-assisted research, as a remote MCP server.')
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride()
    .showHelpAfterError();

  async function withIdentityAdmin<T>(
    fn: (admin: IdentityAdmin, db: Kysely<IdentityDatabase>) => Promise<T>,
  ): Promise<T> {
    const dir = dataDirectory(io.env);
    const database = await openAdminDatabase(dir, io.env);
    const db = createDb<IdentityDatabase>({
      connectionString: database.adminUrl,
      applicationName: 'quarry-cli',
      max: 2,
    });
    try {
      return await fn(createIdentityAdmin(db), db);
    } finally {
      await db.destroy();
      await database.stop();
    }
  }

  program
    .command('start')
    .description(
      'Run the whole system: embedded PostgreSQL (unless DATABASE_URL is set), every service, and the MCP gateway.',
    )
    .action(async () => {
      // A fatal error can come while startAll still runs (no system to close yet) or later.
      const running: { system?: RunningQuarry } = {};
      const stopAfterFatal = (error: Error) => {
        io.err(`error: ${error.message.split('\n')[0]!.replace(/[.:]$/, '')}. Quarry stops.`);
        // Drain what can be drained, but a close that waits on the dead database must not keep a
        // broken system running: exit 1 after FATAL_CLOSE_MS whatever is still open.
        const deadline = new Promise((resolve) => setTimeout(resolve, FATAL_CLOSE_MS).unref());
        const closed = Promise.resolve(running.system?.close()).then(() => io.telemetry?.shutdown());
        void Promise.race([closed, deadline]).finally(() => process.exit(1));
      };
      const system = await startAll({ env: io.env, out: io.out, onFatal: stopAfterFatal });
      running.system = system;
      closeWithGrace({ delay: 15_000, logger: system.logger }, async ({ signal, err }) => {
        if (err) system.logger.error({ err }, 'shutting down after an error');
        else system.logger.info({ signal }, 'shutting down');
        await system.close();
        await io.telemetry?.shutdown();
      });
    });

  program
    .command('migrate')
    .description(
      'Create the database if it does not exist, apply every service migration, and (re)create the app and indexer ' +
        'roles with their privileges (QUARRY_APP_ROLE_PASSWORD and QUARRY_INDEXER_ROLE_PASSWORD against DATABASE_ADMIN_URL).',
    )
    .action(async () => {
      const dir = dataDirectory(io.env);
      const database = await openAdminDatabase(dir, io.env);
      try {
        // Both role passwords are checked before anything is created.
        const roles = serviceRoles(io.env, dir, { generate: database.embedded });
        if (!database.embedded) {
          const { database: name, created } = await createDatabaseIfMissing(database.adminUrl);
          if (created) io.out(`Created database ${name}.`);
        }
        const applied = await migrateAll(database.adminUrl, roles);
        io.out(
          applied.length
            ? `Applied ${applied.length} migration(s):\n${applied.map((m) => `  ${m}`).join('\n')}`
            : 'Database is up to date.',
        );
      } finally {
        await database.stop();
      }
    });

  program
    .command('reindex')
    .description(
      'Rebuild the search indexes from the stored artifacts, deliverables and extraction results with the embedder ' +
        'configured now (after changing EMBEDDINGS_*, or to repair an index). Stop `quarry start` / the indexer first.',
    )
    .action(async () => {
      const dir = dataDirectory(io.env);
      const database = await openAdminDatabase(dir, io.env);
      try {
        await reindex({ adminUrl: database.adminUrl, env: io.env, dataDir: dir.root, out: io.out });
      } finally {
        await database.stop();
      }
    });

  program
    .command('smoke')
    .description(
      "Run one research session over MCP against a running Quarry and check every answer (it creates a plan in the token's org).",
    )
    .option('--url <url>', 'the MCP endpoint', `http://127.0.0.1:${io.env.PORT ?? '8080'}/mcp`)
    .option('--token-file <file>', "the access token (default: QUARRY_TOKEN, else the data directory's dev-token)")
    .action(async (options: { url: string; tokenFile?: string }) => {
      const token = smokeToken(options.tokenFile, io.env);
      await runResearchSession({ url: options.url, token, log: io.out });
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
      if (!['owner', 'admin', 'member'].includes(options.role))
        throw new IdentityAdminError('INVALID_ARGUMENT', `Invalid role "${options.role}": use owner, admin or member.`);
      const added = await withIdentityAdmin((admin) =>
        admin.addUser({ email, orgSlug: options.org, name: options.name, role: options.role }),
      );
      io.out(`Added ${added.email} (${added.name}) to ${added.org}.`);
    });

  const prefs = program
    .command('prefs')
    .description("An organization's default output preferences (what get_next_step returns when a plan completes).");
  prefs
    .command('set')
    .description('Set the default output media type and formatting instructions of an organization.')
    .requiredOption('--org <slug>', 'organization slug')
    .option('--media-type <type>', `one of ${MEDIA_TYPES.join(', ')}`)
    .option('--instructions <text>', 'formatting instructions for deliverables ("" clears them)')
    .action(async (options: { org: string; mediaType?: string; instructions?: string }) => {
      if (options.mediaType === undefined && options.instructions === undefined) {
        throw new IdentityAdminError('INVALID_ARGUMENT', 'Nothing to set: give --media-type and/or --instructions.');
      }
      if (options.mediaType !== undefined && !(MEDIA_TYPES as readonly string[]).includes(options.mediaType)) {
        throw new IdentityAdminError(
          'INVALID_ARGUMENT',
          `Invalid media type "${options.mediaType}": use one of ${MEDIA_TYPES.join(', ')}.`,
        );
      }
      const saved = await withIdentityAdmin(async (admin, db) => {
        const org = await admin.findOrg(options.org);
        if (!org) throw new IdentityAdminError('NOT_FOUND', `No organization with slug "${options.org}".`);
        const instructions = options.instructions === undefined ? undefined : options.instructions.trim() || null;
        const { rows } = await sql<{ output_media_type: string; output_formatting_instructions: string | null }>`
          insert into plan.output_preferences (org_id, output_media_type, output_formatting_instructions, updated_at)
          values (${org.id}, ${options.mediaType ?? 'conversation'}, ${instructions ?? null}, now())
          on conflict (org_id) do update set
            output_media_type = coalesce(${options.mediaType ?? null}, plan.output_preferences.output_media_type),
            output_formatting_instructions = case when ${instructions === undefined} then plan.output_preferences.output_formatting_instructions
                                                  else ${instructions ?? null} end,
            updated_at = now()
          returning output_media_type, output_formatting_instructions`.execute(db);
        return rows[0]!;
      });
      io.out(
        `Output preferences of ${options.org}: ${saved.output_media_type}${saved.output_formatting_instructions ? ` — ${saved.output_formatting_instructions}` : ''}.`,
      );
    });
  prefs
    .command('show')
    .description("Show an organization's output preferences.")
    .requiredOption('--org <slug>', 'organization slug')
    .action(async (options: { org: string }) => {
      const shown = await withIdentityAdmin(async (admin, db) => {
        const org = await admin.findOrg(options.org);
        if (!org) throw new IdentityAdminError('NOT_FOUND', `No organization with slug "${options.org}".`);
        const { rows } = await sql<{ output_media_type: string; output_formatting_instructions: string | null }>`
          select output_media_type, output_formatting_instructions from plan.output_preferences where org_id = ${org.id}`.execute(
          db,
        );
        return rows[0] ?? { output_media_type: 'conversation', output_formatting_instructions: null };
      });
      io.out(
        `${shown.output_media_type}${shown.output_formatting_instructions ? ` — ${shown.output_formatting_instructions}` : ''}`,
      );
    });

  const token = program.command('token').description('Personal access tokens.');
  token
    .command('create')
    .description('Create a personal access token; it is printed once and only its hash is stored.')
    .requiredOption('--org <slug>', 'organization slug')
    .requiredOption('--user <email>', 'member email')
    .option('--name <name>', 'what the token is for', 'default')
    .option('--expires-in <duration>', 'lifetime, e.g. 12h, 30d', durationOption)
    .option('--scopes <scopes>', `comma-separated, of ${SCOPES.join(', ')}`, scopesOption, [
      'quarry:read',
      'quarry:write',
    ])
    .option(
      '--tools <names>',
      'comma-separated tool names: the only tools it may call (default: every tool)',
      toolsOption,
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

  registerOAuthCommands(program, { io, user, withDatabase: (fn) => withIdentityAdmin((_admin, db) => fn(db)) });
  registerServiceAccountCommands(program, { io, withDatabase: (fn) => withIdentityAdmin((_admin, db) => fn(db)) });
  registerImportCommand(program, {
    io,
    token: (file) => smokeToken(file, io.env),
    interactive: io.interactive ?? false,
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
    if (e.code === '3D000') {
      io.err(`error: ${e.message}: run \`quarry migrate\` first (it creates the database).`);
      return 1;
    }
    io.err(`error: ${e.message ?? String(error)}`);
    return 1;
  }
}
