import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { digestingStream, type ManifestFile } from './backup-manifest.js';

// The data directory's own files in a backup: everything but the PostgreSQL cluster (exported
// logically instead), the search indexes (rebuilt on restore) and what each start rewrites.
// Today that is the generated secrets, the dev token and the admin password; whatever a later
// version keeps there (stored originals, keys) is carried the same way without a change here.

/** Where the data directory's files go inside the backup. */
const FILES_DIR = 'files';

/** Top-level entries of the data directory a backup leaves out. */
const NOT_BACKED_UP = new Set(['postgres', 'search', 'grpc-services.json']);

/** The data directory's files to back up, relative to it (`/`-separated), sorted. */
async function dataFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((path) => !NOT_BACKED_UP.has(path.split('/')[0]!))
    .sort();
}

/** Copy `from` to `to` (0600, parents 0700), returning the copy's size and SHA-256. */
async function copyDigesting(from: string, to: string): Promise<{ bytes: number; sha256: string }> {
  await mkdir(dirname(to), { recursive: true, mode: 0o700 });
  const digest = digestingStream();
  await pipeline(createReadStream(from), digest.stream, createWriteStream(to, { mode: 0o600 }));
  return digest.result();
}

/** Copy the data directory's files into `<backupDir>/files/`. */
export async function backUpDataFiles(dataDir: string, backupDir: string): Promise<ManifestFile[]> {
  const files: ManifestFile[] = [];
  for (const path of await dataFiles(dataDir)) {
    const inBackup = `${FILES_DIR}/${path}`;
    files.push({ path: inBackup, ...(await copyDigesting(join(dataDir, path), join(backupDir, inBackup))) });
  }
  return files;
}

/** Copy the backup's data files into the data directory; returns where each one went. */
export async function restoreDataFiles(
  backupDir: string,
  files: readonly ManifestFile[],
  dataDir: string,
): Promise<Array<{ file: ManifestFile; restored: string }>> {
  const restored: Array<{ file: ManifestFile; restored: string }> = [];
  for (const file of files.filter((f) => f.path.startsWith(`${FILES_DIR}/`))) {
    const to = join(dataDir, file.path.slice(FILES_DIR.length + 1));
    await copyDigesting(join(backupDir, file.path), to);
    restored.push({ file, restored: to });
  }
  return restored;
}
