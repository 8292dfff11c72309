import type { Command } from 'commander';
import { backup } from './backup.js';
import { dataDirectory } from './data-dir.js';
import type { Io } from './io.js';
import { restore } from './restore.js';

/** `quarry backup <dir>` and `quarry restore <dir>`: the embedded setup's data directory, whole. */
export function registerBackupCommands(program: Command, { io }: { io: Io }) {
  program
    .command('backup <dir>')
    .description(
      'Back up the embedded setup into a new or empty <dir>, also while `quarry start` runs: the database from one ' +
        'snapshot, the data directory’s secrets and files, and a manifest with their SHA-256s (search indexes are ' +
        'rebuilt on restore). The backup holds secrets: keep it private.',
    )
    .action(async (backupDir: string) => {
      await backup({ dir: dataDirectory(io.env), env: io.env, backupDir, out: io.out });
    });

  program
    .command('restore <dir>')
    .description(
      'Restore a backup into the data directory (QUARRY_DATA_DIR), which must be stopped and empty: every file is ' +
        'checked against the manifest first, the database and files restored, the search indexes rebuilt, and the ' +
        'result checked again.',
    )
    .option('--force', 'delete what the (stopped) data directory holds and replace it with the backup')
    .action(async (backupDir: string, options: { force?: boolean }) => {
      await restore({
        dir: dataDirectory(io.env),
        env: io.env,
        backupDir,
        force: options.force === true,
        out: io.out,
      });
    });
}
