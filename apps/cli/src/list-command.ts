import type { Command } from 'commander';
import { table } from './table.js';

/**
 * A `list` subcommand of `parent` with an `--org` filter: prints what `list` finds as a table,
 * one row per item with the columns `columns` gives it. Options added to the command it returns
 * reach `list` with `org`.
 */
export function orgListCommand<Item, Options extends { org?: string }>(
  parent: Command,
  io: { out(text: string): void },
  description: string,
  list: (options: Options) => Promise<readonly Item[]>,
  columns: (item: Item) => Record<string, unknown>,
): Command {
  return parent
    .command('list')
    .description(description)
    .option('--org <slug>', 'only this organization')
    .action(async (options: Options) => {
      io.out(table((await list(options)).map(columns)));
    });
}
