import { PortInUseError } from '@quarry/config';
import { appUrlFrom, createDatabaseIfMissing, createDb, startEmbeddedPostgres } from '@quarry/db';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createIdentityAdmin, createOAuthAdmin, type IdentityDatabase } from '@quarry/gateway';
import { startSystem } from '@quarry/system';
import { createLogger, type Logger } from '@quarry/telemetry';
import { dataDirectory } from './data-dir.js';
import { migrateAll } from './migrations.js';
import { serviceRoles } from './roles.js';

export interface StartOptions {
  env: Readonly<Record<string, string | undefined>>;
  out: (line: string) => void;
  /** Log level override (tests pass 'silent'). */
  logLevel?: 'silent' | 'info' | 'debug' | 'warn' | 'error';
  /** The system cannot go on (its embedded PostgreSQL died and could not be restarted): stop and exit non-zero. */
  onFatal?: (error: Error) => void;
}

const DEFAULT_ORG = 'default';
const DEFAULT_USER = 'admin@localhost';
const PASSWORD_FILE = 'admin-password';
/** The gRPC services' addresses under `quarry start`, keyed by proto service, for direct callers. */
const GRPC_ADDRESSES_FILE = 'grpc-services.json';

/** The whole system `quarry start` runs. */
export interface RunningQuarry {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  url: string;
  port: number;
  logger: Logger;
  /** Drain in order: stop being ready, finish in-flight requests, release, stop PostgreSQL. */
  close(): Promise<void>;
}

/**
 * `npm start`: the whole system on one machine. PostgreSQL is embedded unless DATABASE_URL is
 * set; migrations run; services start on loopback and talk real gRPC; the gateway listens on
 * 127.0.0.1:$PORT. One Node process hosts every service (ADR 0006 has the measurements).
 */
export async function startAll({ env, out, logLevel, onFatal }: StartOptions): Promise<RunningQuarry> {
  const dir = dataDirectory(env);
  const logger = createLogger({
    service: 'quarry',
    level: logLevel ?? (env.LOG_LEVEL as 'info' | undefined) ?? 'info',
  });

  // What has started, to stop newest first: on Ctrl-C, and when a later step fails (a port in
  // use, a bad URL), so a failed start exits instead of leaving PostgreSQL and the services up.
  const started: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    while (started.length > 0) await started.pop()!();
  };
  let port: number;
  let url: string;
  let firstToken: string | undefined;
  let passwordFile = '';
  try {
    // Supervised: a PostgreSQL killed under us (OOM killer, crash) comes back on the same port
    // and every service reconnects on its own; only when it cannot come back does Quarry stop.
    if (!env.DATABASE_URL) dir.create();
    const embedded = env.DATABASE_URL
      ? undefined
      : await startEmbeddedPostgres({
          dataDir: dir.postgres,
          persistent: true,
          supervise: {
            onExit: (reason) => logger.error({ reason }, 'embedded PostgreSQL exited unexpectedly; restarting it'),
            onRestarted: (info) => logger.warn(info, 'embedded PostgreSQL restarted'),
            onGaveUp: (err) => {
              logger.error({ err }, 'embedded PostgreSQL could not be restarted');
              onFatal?.(err);
            },
          },
        });
    if (embedded) started.push(() => embedded.stop());
    const adminUrl = embedded?.adminUrl ?? env.DATABASE_ADMIN_URL ?? env.DATABASE_URL!;

    const roles = serviceRoles(env, dir);
    if (!embedded) await createDatabaseIfMissing(adminUrl);
    const applied = await migrateAll(adminUrl, roles);
    if (applied.length) logger.info({ applied }, 'migrations applied');
    firstToken = await bootstrap(adminUrl, dir.devTokenFile, dir.writePrivate);
    passwordFile = join(dir.root, PASSWORD_FILE);

    // Every service on loopback, reached by the gateway over real gRPC (ADR 0006); one process,
    // so the gateway's own /metrics (no METRICS_PORT) appends every service's registry.
    const system = await startSystem({
      databaseUrl: appUrlFrom(adminUrl, roles.app.role, roles.app.password),
      indexerDatabaseUrl: appUrlFrom(adminUrl, roles.indexer.role, roles.indexer.password),
      identityKey: env.QUARRY_IDENTITY_KEY ?? dir.secret('identity-key', 48),
      dataDir: dir.root,
      // Submission handles are signed with a key of their own, generated once like the identity key.
      // The audit checkpoints are signed with a key pair generated once too, outside the database.
      env: {
        ...env,
        EXTRACTION_HANDLE_KEY: env.EXTRACTION_HANDLE_KEY ?? dir.secret('extraction-handle-key', 48),
        QUARRY_AUDIT_SIGNING_KEY_FILE: env.QUARRY_AUDIT_SIGNING_KEY_FILE || dir.auditSigningKeyFile(),
      },
      logger,
      // Service accounts call the services directly with tokens from the embedded authorization server.
      serviceAccounts: true,
    }).catch((error: unknown) => {
      if (!(error instanceof PortInUseError)) throw error;
      throw new Error(
        `${error.host.includes(':') ? `[${error.host}]` : error.host}:${error.port} is already in use (EADDRINUSE): is Quarry already running? Stop it, or start on another port: PORT=${error.port + 1} npm start`,
        { cause: error },
      );
    });
    started.push(() => system.close());
    // Where service accounts reach the services directly (ports are picked at each start).
    dir.writePrivate(GRPC_ADDRESSES_FILE, `${JSON.stringify(system.services.addresses, null, 2)}\n`);
    port = system.port;
    url = system.url;
  } catch (error) {
    await stopAll().catch((err: unknown) => logger.error({ err }, 'could not stop everything after a failed start'));
    throw error;
  }

  out('');
  out(`Quarry is running.  MCP endpoint: ${url}`);
  out(`Web app: ${new URL('/app', url).href}  (sign in as ${DEFAULT_USER} with the password in ${passwordFile})`);
  if (firstToken) {
    out(
      `First start: created org "${DEFAULT_ORG}", user ${DEFAULT_USER} and a token (saved to ${dir.devTokenFile}, shown only now):`,
    );
    out(`  ${firstToken}`);
    out('Connect Claude Code:');
    out(`  claude mcp add --transport http quarry ${url} --header "Authorization: Bearer ${firstToken}"`);
  } else {
    out(`Your token is in ${dir.devTokenFile}. Connect Claude Code:`);
    out(`  claude mcp add --transport http quarry ${url} --header "Authorization: Bearer $(cat ${dir.devTokenFile})"`);
  }
  out(`Apps that sign in with OAuth (claude.ai, ChatGPT, MCP Inspector) need only ${url}:`);
  out(
    `  sign in as ${DEFAULT_USER} with the password in ${passwordFile} (change it: quarry user passwd ${DEFAULT_USER})`,
  );
  out(`gRPC services for service accounts (quarry service-account create): ${join(dir.root, GRPC_ADDRESSES_FILE)}`);
  out('Ctrl-C stops everything cleanly.');
  out('');

  return {
    url,
    port,
    logger,
    close: stopAll,
  };
}

/** First start only: org `default`, user `admin@localhost`, and a token saved 0600. */
async function bootstrap(
  adminUrl: string,
  tokenFile: string,
  writePrivate: (name: string, content: string) => void,
): Promise<string | undefined> {
  const db = createDb<IdentityDatabase>({ connectionString: adminUrl, applicationName: 'quarry-bootstrap', max: 1 });
  try {
    const admin = createIdentityAdmin(db);
    if (await admin.findOrg(DEFAULT_ORG)) return undefined;
    await admin.createOrg({ slug: DEFAULT_ORG, name: 'Default organization' });
    await admin.addUser({ email: DEFAULT_USER, orgSlug: DEFAULT_ORG, name: 'Admin', role: 'owner' });
    const { token } = await admin.createToken({ orgSlug: DEFAULT_ORG, email: DEFAULT_USER, name: 'dev-token' });
    writePrivate(tokenFile.split('/').pop()!, `${token}\n`);
    // The sign-in password for OAuth clients, kept next to the token and readable by its owner only.
    const password = randomBytes(18).toString('base64url');
    await createOAuthAdmin(db).setPassword(DEFAULT_USER, password);
    writePrivate(PASSWORD_FILE, `${password}\n`);
    return token;
  } finally {
    await db.destroy();
  }
}
