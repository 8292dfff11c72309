import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';

// What a backup directory holds and how it proves it is intact: `manifest.json` lists every
// other file with its size and SHA-256, and `manifest.sha256` (sha256sum's format, so
// `sha256sum -c manifest.sha256` checks it by hand too) holds the manifest's own digest.

const MANIFEST = 'manifest.json';
const MANIFEST_DIGEST = 'manifest.sha256';
export const MANIFEST_FORMAT = 'quarry-backup';

/** A path inside the backup: relative, `/`-separated, no `..`, so a crafted manifest cannot write elsewhere. */
const insidePath = z
  .string()
  .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/)
  .refine((p) => !p.split('/').some((part) => part === '.' || part === '..'), 'must stay inside the backup');
const identifier = z.string().min(1).max(63);

const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  formatVersion: z.literal(1),
  quarryVersion: z.string(),
  createdAt: z.iso.datetime({ offset: true }),
  tookMs: z.number().int().nonnegative(),
  postgres: z.object({ serverVersion: z.string() }),
  /** Applied migrations per schema, in order. */
  migrations: z.record(identifier, z.array(z.string())),
  tables: z.array(
    z.object({
      schema: identifier,
      table: identifier,
      /** Partitioned tables are read through a query (COPY TO takes only plain tables). */
      partitioned: z.boolean(),
      /** Stored columns in order (generated ones are recomputed on restore). */
      columns: z.array(identifier).min(1),
      rows: z.number().int().nonnegative(),
      file: insidePath,
    }),
  ),
  /** Sequences that have been used, and where they stood. */
  sequences: z.array(z.object({ schema: identifier, sequence: identifier, lastValue: z.string().regex(/^-?\d+$/) })),
  /** Every file of the backup but the manifest, with its size and SHA-256. */
  files: z.array(z.object({ path: insidePath, bytes: z.number().int().nonnegative(), sha256: z.string() })),
  /** The search indexes are not in the backup: restore rebuilds them from the database. */
  searchIndexes: z.literal('rebuilt-on-restore'),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestTable = Manifest['tables'][number];
export type ManifestFile = Manifest['files'][number];

/** A backup that is incomplete, altered or damaged; the message names the file. */
export class BackupIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupIntegrityError';
  }
}

/** A pass-through that digests what flows through it. */
export function digestingStream(): { stream: Transform; result: () => { bytes: number; sha256: string } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ bytes, sha256: hash.digest('hex') }) };
}

/** The size and SHA-256 of a file, streamed. */
export async function digestFile(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(path), async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  });
  return { bytes, sha256: hash.digest('hex') };
}

export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  await writeFile(join(dir, MANIFEST), text, { mode: 0o600 });
  const digest = createHash('sha256').update(text).digest('hex');
  await writeFile(join(dir, MANIFEST_DIGEST), `${digest}  ${MANIFEST}\n`, { mode: 0o600 });
}

/**
 * Read the manifest of the backup in `dir` and check it and every file it lists: the manifest
 * against `manifest.sha256`, each file's size and SHA-256 against the manifest. The first
 * mismatch throws, naming the file.
 */
export async function readVerifiedManifest(dir: string): Promise<Manifest> {
  const read = (name: string) =>
    readFile(join(dir, name)).catch(() => {
      throw new BackupIntegrityError(`${join(dir, name)} is missing: ${dir} is not a complete Quarry backup.`);
    });
  const text = await read(MANIFEST);
  const expected = (await read(MANIFEST_DIGEST)).toString('utf8').split(/\s+/)[0];
  if (createHash('sha256').update(text).digest('hex') !== expected)
    throw new BackupIntegrityError(
      `${MANIFEST} does not match its SHA-256 in ${MANIFEST_DIGEST}: the backup is damaged.`,
    );
  let manifest: Manifest;
  try {
    manifest = manifestSchema.parse(JSON.parse(text.toString('utf8')));
  } catch (error) {
    throw new BackupIntegrityError(`${MANIFEST} is not a Quarry backup manifest: ${(error as Error).message}`);
  }
  for (const file of manifest.files) {
    const actual = await digestFile(join(dir, file.path)).catch(() => undefined);
    if (!actual) throw new BackupIntegrityError(`${file.path} is missing from the backup.`);
    if (actual.bytes !== file.bytes || actual.sha256 !== file.sha256)
      throw new BackupIntegrityError(
        `${file.path} does not match its SHA-256 in ${MANIFEST} (${actual.bytes} bytes, sha256 ${actual.sha256}; ` +
          `expected ${file.bytes} bytes, sha256 ${file.sha256}): the backup is damaged; restore refuses it.`,
      );
  }
  return manifest;
}
