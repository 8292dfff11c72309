import { createDb, isUuid, sql, type AnyDb } from '@quarry/db';
import {
  assertEd25519,
  auditChainOrgs,
  readAuditChain,
  verifyAuditChain,
  type ChainVerification,
} from '@quarry/plan-engine';
import type { Command } from 'commander';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { openAdminDatabase } from './database.js';
import { dataDirectory } from './data-dir.js';
import type { Io } from './io.js';

/** The org's id: `--org` takes an id or a slug. */
async function resolveOrg(admin: AnyDb, org: string): Promise<string> {
  if (isUuid(org)) return org;
  const { rows } = await sql<{ id: string }>`select id::text from identity.organizations where slug = ${org}`.execute(
    admin,
  );
  if (!rows[0]) throw new Error(`No organization "${org}" (give its id or slug).`);
  return rows[0].id;
}

function readPublicKey(file: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`Cannot read a public key from ${file} (${(error as Error).message}).`, { cause: error });
  }
  assertEd25519(key, 'public');
  return key;
}

function describe(v: ChainVerification): string {
  const counts = `${v.entries} entries (${v.rows} rows, ${v.tombstones} tombstones, ${v.purged} purged), ${v.checkpoints} checkpoint(s)`;
  if (!v.break) return `org ${v.orgId}: ok, ${counts}, head ${v.headHash.slice(0, 16)}…`;
  const where = v.break.entry ? ` (${v.break.entry})` : '';
  return `org ${v.orgId}: BROKEN at entry ${v.break.seq}${where}: ${v.break.reason}; the ${v.entries} entries before it check out`;
}

/**
 * `quarry audit verify`: recompute every org's audit chain (or one org's) from the rows, as the
 * admin, and check it against the signed checkpoints; exits 1 at the first broken link of any org.
 */
export function registerAuditCommands(program: Command, { io }: { io: Io }): void {
  const audit = program.command('audit').description('The tamper-evident audit log of the plan engine.');
  audit
    .command('verify')
    .description(
      "Recompute each org's audit hash chain from its rows and check it against the signed checkpoints; " +
        'reports the first broken link (an edited, deleted, inserted or moved entry, a removed tail, a forged checkpoint) and exits 1.',
    )
    .option('--org <id>', 'one organization (id or slug) instead of all')
    .option(
      '--public-key <file>',
      "the plan engine's audit public key (PEM) to check the checkpoints' signatures (default: QUARRY_AUDIT_PUBLIC_KEY_FILE, else the data directory's of `quarry start`)",
    )
    .action(async (options: { org?: string; publicKey?: string }) => {
      const dir = dataDirectory(io.env);
      // The embedded setup's own key pair (quarry start), when no database is named.
      const embeddedKey = io.env.DATABASE_ADMIN_URL || io.env.DATABASE_URL ? undefined : dir.auditPublicKeyFile;
      const keyFile =
        options.publicKey ??
        (io.env.QUARRY_AUDIT_PUBLIC_KEY_FILE || (embeddedKey && existsSync(embeddedKey) ? embeddedKey : undefined));
      const publicKey = keyFile ? readPublicKey(keyFile) : undefined;
      const database = await openAdminDatabase(dir, io.env);
      const admin = createDb<unknown>({ connectionString: database.adminUrl, applicationName: 'quarry-audit', max: 2 });
      try {
        const orgs = options.org ? [await resolveOrg(admin, options.org)] : await auditChainOrgs(admin);
        let broken = 0;
        for (const orgId of orgs) {
          const verified = verifyAuditChain({ orgId, ...(await readAuditChain(admin, orgId)), publicKey });
          if (verified.break) broken += 1;
          (verified.break ? io.err : io.out)(describe(verified));
        }
        if (!publicKey)
          io.err("warning: checkpoint signatures not checked: pass --public-key (the plan engine's audit public key).");
        if (broken) throw new Error(`the audit log of ${broken} of ${orgs.length} org(s) does not verify.`);
        io.out(`Verified the audit log of ${orgs.length} org(s).`);
      } finally {
        await admin.destroy();
        await database.stop();
      }
    });
}
