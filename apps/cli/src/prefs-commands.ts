import { sql } from '@quarry/db';
import { type IdentityAdmin, IdentityAdminError } from '@quarry/gateway';
import type { Command } from 'commander';
import type { WithIdentityAdmin } from './identity-admin.js';
import type { Io } from './io.js';

const MEDIA_TYPES = ['conversation', 'markdown', 'html', 'word', 'excel', 'powerpoint'] as const;

async function orgNamed(admin: IdentityAdmin, slug: string) {
  const org = await admin.findOrg(slug);
  if (!org) throw new IdentityAdminError('NOT_FOUND', `No organization with slug "${slug}".`);
  return org;
}

/** `quarry prefs set|show`: an organization's default output preferences. */
export function registerPrefsCommands(
  program: Command,
  { io, withIdentityAdmin }: { io: Io; withIdentityAdmin: WithIdentityAdmin },
) {
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
        const org = await orgNamed(admin, options.org);
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
        const org = await orgNamed(admin, options.org);
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
}
