import { backfillInstructionFlags, orgsToBackfill } from '@quarry/artifact-store';
import { createDb, isUuid, sql, type AnyDb } from '@quarry/db';
import type { Command } from 'commander';
import { openAdminDatabase } from './database.js';
import { dataDirectory } from './data-dir.js';
import type { Io } from './io.js';

/** The org's id: `--org` takes an id or a slug. */
async function orgId(admin: AnyDb, org: string): Promise<string> {
  if (isUuid(org)) return org;
  const { rows } = await sql<{ id: string }>`select id::text from identity.organizations where slug = ${org}`.execute(
    admin,
  );
  if (!rows[0]) throw new Error(`No organization "${org}" (give its id or slug).`);
  return rows[0].id;
}

/**
 * `quarry flags backfill`: instruction flags (docs/adr/0062-instruction-flags.md) for artifacts
 * stored before the scanner, as the admin, one org at a time in short transactions; safe while
 * Quarry runs and safe to repeat (a row once scanned is left alone).
 */
export function registerFlagsCommands(program: Command, { io }: { io: Io }): void {
  const flags = program.command('flags').description('Instruction flags on stored content (text aimed at AI models).');
  flags
    .command('backfill')
    .description(
      'Scan the artifacts stored before instruction flags existed and store their flags. Safe while Quarry runs; repeatable.',
    )
    .option('--org <id>', 'one organization (id or slug) instead of all')
    .action(async (options: { org?: string }) => {
      const dir = dataDirectory(io.env);
      const database = await openAdminDatabase(dir, io.env);
      const admin = createDb<unknown>({ connectionString: database.adminUrl, applicationName: 'quarry-flags', max: 2 });
      try {
        const orgs = options.org ? [await orgId(admin, options.org)] : await orgsToBackfill(admin);
        let scanned = 0;
        let flagged = 0;
        for (const org of orgs) {
          const done = await backfillInstructionFlags(admin, org);
          scanned += done.scanned;
          flagged += done.flagged;
          if (done.scanned) io.out(`org ${org}: scanned ${done.scanned} artifact(s), ${done.flagged} flagged`);
        }
        io.out(`Scanned ${scanned} artifact(s) of ${orgs.length} org(s) not scanned before; ${flagged} have flags.`);
      } finally {
        await admin.destroy();
        await database.stop();
      }
    });
}
