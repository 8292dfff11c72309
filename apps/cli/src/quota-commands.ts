import type { AnyDb } from '@quarry/db';
import { type Command, InvalidArgumentError } from 'commander';
import type { Io } from './io.js';
import { orgIdOf, QUOTAS, type QuotaChanges, type QuotaName, setQuotas, showQuotas } from './quotas.js';
import { table } from './table.js';

interface QuotaCommandDeps {
  io: Io;
  withDatabase: <T>(fn: (db: AnyDb) => Promise<T>) => Promise<T>;
}

/** What `default` is kept as until the action reads it (commander turns a null option value into ''). */
const DEFAULT = 'default';

/** A limit as typed: a whole number ≥ 0, or `default` (the services' default for every org). */
function limitArgument(value: string): number | typeof DEFAULT {
  if (value === DEFAULT) return DEFAULT;
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('give a whole number ≥ 0, or "default".');
  return Number(value);
}

/** A limit to write: null clears the org's own. */
const limitOf = (value: number | typeof DEFAULT) => (value === DEFAULT ? null : value);

/** `read=600,write=60,model=default`: calls per minute by tool class. */
function callsArgument(value: string): QuotaChanges {
  const changes: QuotaChanges = {};
  for (const part of value.split(',')) {
    const [toolClass, limit] = part.split('=');
    const name = `calls_per_minute.${toolClass?.trim()}` as QuotaName;
    if (!Object.hasOwn(QUOTAS, name) || limit === undefined)
      throw new InvalidArgumentError(
        'use class=limit pairs, e.g. read=600,write=60 (classes: read, write, search, model).',
      );
    changes[name] = limitOf(limitArgument(limit.trim()));
  }
  return changes;
}

interface SetOptions {
  org: string;
  storageBytes?: number | typeof DEFAULT;
  artifacts?: number | typeof DEFAULT;
  callsPerMinute?: QuotaChanges;
  extractionsPerDay?: number | typeof DEFAULT;
  modelTokensPerDay?: number | typeof DEFAULT;
}

/** `quarry quota set|show --org`: each org's limits, enforced by the service that owns what they limit. */
export function registerQuotaCommands(program: Command, { io, withDatabase }: QuotaCommandDeps): void {
  const quota = program
    .command('quota')
    .description(
      "Per-org quotas. Every org gets the services' defaults (QUOTA_* variables, the chart's quotas values) unless set here.",
    );
  quota
    .command('set')
    .description('Set an org’s own limits ("default" goes back to the services’ default); they apply within 30 s.')
    .requiredOption('--org <slug>', 'the organization')
    .option('--storage-bytes <n>', 'bytes it may store (artifacts, outputs, documents)', limitArgument)
    .option('--artifacts <n>', 'artifacts and research outputs it may keep', limitArgument)
    .option(
      '--calls-per-minute <class=n,...>',
      'tool calls per minute by class: read, write, search, model',
      callsArgument,
    )
    .option('--extractions-per-day <n>', 'extractions on a server model per UTC day', limitArgument)
    .option('--model-tokens-per-day <n>', 'server-model tokens per UTC day', limitArgument)
    .action(async (options: SetOptions) => {
      const changes: QuotaChanges = { ...options.callsPerMinute };
      if (options.storageBytes !== undefined) changes.storage_bytes = limitOf(options.storageBytes);
      if (options.artifacts !== undefined) changes.artifacts = limitOf(options.artifacts);
      if (options.extractionsPerDay !== undefined) changes.extractions_per_day = limitOf(options.extractionsPerDay);
      if (options.modelTokensPerDay !== undefined) changes.model_tokens_per_day = limitOf(options.modelTokensPerDay);
      const names = Object.keys(changes);
      if (names.length === 0) throw new InvalidArgumentError('Name at least one quota to set (see --help).');
      await withDatabase(async (db) => setQuotas(db, await orgIdOf(db, options.org), changes));
      io.out(`Set ${names.join(', ')} for ${options.org}.`);
    });
  quota
    .command('show')
    .description('Show an org’s limits (its own, or the default this environment gives), its use and when each resets.')
    .requiredOption('--org <slug>', 'the organization')
    .action(async (options: { org: string }) => {
      const rows = await withDatabase(async (db) => showQuotas(db, await orgIdOf(db, options.org), io.env));
      io.out(
        table(
          rows.map((r) => ({
            quota: r.quota,
            limit: r.limit ?? 'none',
            set: r.source,
            used: r.used,
            unit: QUOTAS[r.quota].unit,
            resets: r.resets,
          })),
        ),
      );
    });
}
