import { createDatabaseIfMissing, createDb, existingRoles } from '@quarry/db';
import { createIdentityAdmin, IdentityAdminError, type IdentityDatabase } from '@quarry/gateway';
import closeWithGrace from 'close-with-grace';
import { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openAdminDatabase } from './database.js';
import { dataDirectory } from './data-dir.js';
import { APP_ROLE, INDEXER_ROLE, migrateAll } from './migrations.js';
import { registerImportCommand } from './import-command.js';
import { reindex } from './reindex.js';
import { runResearchSession } from './smoke.js';
import { migrationRoles } from './roles.js';
import type { RoleLogins } from '@quarry/system';
import { startAll, type RunningQuarry } from './start.js';
import { registerOAuthCommands } from './oauth-commands.js';
import { registerPrefsCommands } from './prefs-commands.js';
import { registerTokenCommands } from './token-commands.js';
import type { WithIdentityAdmin } from './identity-admin.js';
import { registerServiceAccountCommands } from './service-account-commands.js';
import { registerBackupCommands } from './backup-commands.js';
import { registerAuditCommands } from './audit-commands.js';
import { registerQuotaCommands } from './quota-commands.js';
import { registerFlagsCommands } from './flags-commands.js';
import type { Io } from './io.js';

/** How long `quarry start` drains after a fatal error before it exits anyway. */
const FATAL_CLOSE_MS = 10_000;

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

  const withIdentityAdmin: WithIdentityAdmin = async (fn) => {
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
  };

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
      'Create the database if it does not exist, apply every service migration, and create the app and indexer ' +
        'roles with their privileges (QUARRY_APP_ROLE_PASSWORD and QUARRY_INDEXER_ROLE_PASSWORD against DATABASE_ADMIN_URL, ' +
        'needed to create a role). Roles that exist keep their passwords, so running services keep working after an upgrade.',
    )
    .option(
      '--rotate-role-passwords',
      'also set the given passwords on roles that exist (then restart the services that connect as them)',
    )
    .action(async (options: { rotateRolePasswords?: boolean }) => {
      const rotate = options.rotateRolePasswords === true;
      const dir = dataDirectory(io.env);
      const database = await openAdminDatabase(dir, io.env);
      try {
        // The role passwords needed are checked before anything is created.
        const existing = database.embedded
          ? new Set<string>()
          : await existingRoles(database.adminUrl, [
              io.env.QUARRY_APP_ROLE || APP_ROLE,
              io.env.QUARRY_INDEXER_ROLE || INDEXER_ROLE,
            ]);
        const roles = migrationRoles(io.env, dir, { generate: database.embedded, rotate, existing });
        if (!database.embedded) {
          const { database: name, created } = await createDatabaseIfMissing(database.adminUrl);
          if (created) io.out(`Created database ${name}.`);
        }
        const applied = await migrateAll(database.adminUrl, roles, { keepPasswords: !rotate });
        io.out(
          applied.length
            ? `Applied ${applied.length} migration(s):\n${applied.map((m) => `  ${m}`).join('\n')}`
            : 'Database is up to date.',
        );
        if (rotate) io.out(rotatedPasswordsNotice(roles));
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

  registerPrefsCommands(program, { io, withIdentityAdmin });
  registerTokenCommands(program, { io, withIdentityAdmin });
  registerOAuthCommands(program, { io, user, withDatabase: (fn) => withIdentityAdmin((_admin, db) => fn(db)) });
  registerServiceAccountCommands(program, { io, withDatabase: (fn) => withIdentityAdmin((_admin, db) => fn(db)) });
  registerAuditCommands(program, { io });
  registerQuotaCommands(program, { io, withDatabase: (fn) => withIdentityAdmin((_admin, db) => fn(db)) });
  registerFlagsCommands(program, { io });
  registerImportCommand(program, {
    io,
    token: (file) => smokeToken(file, io.env),
    interactive: io.interactive ?? false,
  });
  registerBackupCommands(program, { io });

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

/** What `migrate --rotate-role-passwords` tells the operator to do next. */
function rotatedPasswordsNotice(roles: RoleLogins): string {
  return (
    `Set new passwords on ${roles.app.role} and ${roles.indexer.role}. Restart, with the new password in DATABASE_URL, ` +
    `the gateway, plan-engine, artifact-store and extraction (${roles.app.role}) and the indexer (${roles.indexer.role}); ` +
    'their new connections are refused until then (search connects to no database).'
  );
}
