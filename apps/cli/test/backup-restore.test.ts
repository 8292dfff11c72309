import {
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  realpathSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { runCli, startAll } from '@quarry/cli';
import { createDb, findRunningEmbeddedPostgres, sql } from '@quarry/db';
import { callTool, search, until } from './system-support.js';

// `quarry backup` while `quarry start` runs, `quarry restore` into a new data directory, and a
// start on the restored one: every artifact's and deliverable's content hash and a search answer
// are the same as before; the first start's token still works; a damaged backup is refused
// naming the file; a data directory in use or not empty is refused.

const root = mkdtempSync(join(tmpdir(), 'quarry-backup-'));
const original = join(root, 'original');
const backupDir = join(root, 'backup');
const restored = join(root, 'restored');
afterAll(() => {
  // Run as root, each cluster lives in /var/tmp behind a symlink (see @quarry/db): those go too.
  for (const dir of [original, restored]) {
    const cluster = join(dir, 'postgres', 'pgdata');
    if (existsSync(cluster) && lstatSync(cluster).isSymbolicLink())
      rmSync(realpathSync(cluster), { recursive: true, force: true });
  }
  rmSync(root, { recursive: true, force: true });
});

async function quarry(dataDir: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    env: { QUARRY_DATA_DIR: dataDir },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every stored artifact's and deliverable's SHA-256 of its content, by id, read as the superuser. */
async function contentHashes(dataDir: string): Promise<Record<string, string>> {
  const running = (await findRunningEmbeddedPostgres(join(dataDir, 'postgres')))!;
  const db = createDb<unknown>({ connectionString: running.adminUrl, applicationName: 'backup-test', max: 1 });
  try {
    const { rows } = await sql<{ id: string; sha256: string }>`
      select id::text, encode(sha256(convert_to(title || content::text || coalesce(content_text, ''), 'UTF8')), 'hex') as sha256
        from artifact.research_artifacts
      union all
      select id::text, encode(sha256(coalesce(content_bytes, convert_to(content_text, 'UTF8'))), 'hex')
        from artifact.research_outputs
      order by 1`.execute(db);
    return Object.fromEntries(rows.map((r) => [r.id, r.sha256]));
  } finally {
    await db.destroy();
  }
}

const WORD_BYTES = Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Array.from({ length: 300 }, (_, i) => (i * 37) % 256)]);

describe('quarry backup and quarry restore (embedded setup)', () => {
  let before: Record<string, string> = {};
  let searchedBefore: string[] = [];
  let token = '';

  it('backs up while quarry start runs: database, secrets, manifest with SHA-256s', async () => {
    const system = await startAll({ env: { QUARRY_DATA_DIR: original, PORT: '0' }, out: () => {}, logLevel: 'silent' });
    try {
      token = readFileSync(join(original, 'dev-token'), 'utf8').trim();
      const plan = await callTool<{ planId: string }>(system.url, token, 'create_research_plan', {
        name: 'Glaciers',
        researchQuestion: 'How do glaciers shape valleys?',
        steps: [{ stepType: 'search', instructions: 'Find sources.' }],
      });
      const items = Array.from({ length: 40 }, (_, i) => ({
        artifactType: 'finding',
        planId: plan.planId,
        title: `Glacier note ${i}`,
        content: { n: i },
        contentText: `Note ${i}: glaciers carve cirques, moraines and U-shaped valleys ${'ice '.repeat(i)}`,
        tags: [`n${i % 3}`],
      }));
      const batch = await callTool<{ stored: number }>(system.url, token, 'store_research_batch', { artifacts: items });
      expect(batch.stored).toBe(40);
      await callTool(system.url, token, 'store_research_output', {
        planId: plan.planId,
        mediaType: 'word',
        title: 'Glacier report (Word)',
        content: WORD_BYTES.toString('base64'),
        contentSummary: 'A Word report on drumlins and eskers.',
      });
      await callTool(system.url, token, 'store_research_output', {
        planId: plan.planId,
        mediaType: 'markdown',
        title: 'Glacier summary',
        content: '# Summary\n\nDrumlins and eskers mark where ice sheets flowed.',
      });
      await until(async () => (await search(system.url, token, 'drumlins eskers')).length >= 2, 30_000);
      searchedBefore = (await search(system.url, token, 'cirques moraines valleys', { limit: 10 })).map(
        (h) => h.sourceId,
      );
      expect(searchedBefore.length).toBeGreaterThan(0);
      before = await contentHashes(original);
      expect(Object.keys(before)).toHaveLength(42);

      // Another org keeps writing during the backup (its own org, so the search compared below is
      // unaffected): the backup must hold each of its artifacts with its outbox event, or neither.
      await quarry(original, 'org', 'create', 'busy');
      await quarry(original, 'user', 'add', 'bee@busy.test', '--org', 'busy');
      const busyToken = (await quarry(original, 'token', 'create', '--org', 'busy', '--user', 'bee@busy.test')).out;
      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing) {
          await callTool(system.url, busyToken.trim(), 'store_research', {
            artifactType: 'finding',
            title: `Busy ${written}`,
            content: {},
            contentText: `Basalt columns cool into hexagons, note ${written}.`,
          });
          written++;
        }
      })();
      await until(async () => written > 0);

      const run = await quarry(original, 'backup', backupDir);
      writing = false;
      await writer;
      expect(run).toMatchObject({ code: 0, err: '' });
      expect(run.out).toContain('The backup holds the data directory’s secrets');
    } finally {
      await system.close();
    }
    expect(statSync(backupDir).mode & 0o777).toBe(0o700);
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'quarry-backup', searchIndexes: 'rebuilt-on-restore' });
    expect(manifest.migrations.artifact.length).toBeGreaterThan(0);
    const artifacts = manifest.tables.find((t: { table: string }) => t.table === 'research_artifacts');
    expect(artifacts.rows).toBeGreaterThan(40); // the 40, and what the busy org had stored by then
    const paths = manifest.files.map((f: { path: string }) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['files/dev-token', 'files/admin-password', 'files/identity-key.secret']),
    );
    expect(paths.some((p: string) => p.startsWith('files/postgres') || p.startsWith('files/search'))).toBe(false);
    // A second backup into the same directory would mix two; refused.
    expect(await quarry(original, 'backup', backupDir)).toMatchObject({ code: 1 });
  }, 120_000);

  it('restores into a new data directory; the restored Quarry has the same content, search and token', async () => {
    const run = await quarry(restored, 'restore', backupDir);
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toMatch(/Restored \d+ table\(s\)/);
    expect(statSync(join(restored, 'identity-key.secret')).mode & 0o777).toBe(0o600);

    const system = await startAll({ env: { QUARRY_DATA_DIR: restored, PORT: '0' }, out: () => {}, logLevel: 'silent' });
    try {
      const hashes = await contentHashes(restored);
      expect(Object.fromEntries(Object.keys(before).map((id) => [id, hashes[id]]))).toEqual(before);
      // One snapshot: every artifact restored has its content.created event, and no event lacks its artifact.
      const running = (await findRunningEmbeddedPostgres(join(restored, 'postgres')))!;
      const db = createDb<unknown>({ connectionString: running.adminUrl, applicationName: 'backup-test', max: 1 });
      try {
        const { rows } = await sql<{ artifacts: string[]; announced: string[] }>`
          select array(select id::text from artifact.research_artifacts order by 1) as artifacts,
                 array(select distinct payload->>'sourceId' from events.outbox
                        where topic = 'content.created' and payload->>'sourceTable' = 'research_artifact'
                        order by 1) as announced`.execute(db);
        expect(rows[0]!.artifacts.length).toBeGreaterThan(40);
        expect(rows[0]!.announced).toEqual(rows[0]!.artifacts);
      } finally {
        await db.destroy();
      }
      // The token of the original's first start, restored with its database row, still signs in.
      const after = (await search(system.url, token, 'cirques moraines valleys', { limit: 10 })).map((h) => h.sourceId);
      expect(after).toEqual(searchedBefore);
      expect((await search(system.url, token, 'drumlins eskers')).length).toBeGreaterThanOrEqual(2);
      // The restored outbox and the indexer's offset carry on: what is stored now is found.
      const { id } = await callTool<{ id: string }>(system.url, token, 'store_research', {
        artifactType: 'finding',
        title: 'After the restore',
        content: {},
        contentText: 'Nunataks are peaks that stand above an ice sheet.',
      });
      await until(
        async () => (await search(system.url, token, 'nunataks peaks')).some((h) => h.sourceId === id),
        30_000,
      );

      // The audit chain came back whole: links, heads and signed checkpoints verify with the restored key.
      const audited = await quarry(restored, 'audit', 'verify');
      expect({ code: audited.code, err: audited.err }).toEqual({ code: 0, err: '' });

      // While it runs, a restore onto it is refused, even with --force.
      const onRunning = await quarry(restored, 'restore', backupDir, '--force');
      expect(onRunning.code).toBe(1);
      expect(onRunning.err).toContain(`Quarry is running on ${restored}`);
    } finally {
      await system.close();
    }
  }, 180_000);

  it('refuses a non-empty data directory without --force, and replaces a stopped one with it', async () => {
    const refused = await quarry(restored, 'restore', backupDir);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`${restored} is not empty`);
    expect(refused.err).toContain('--force');

    const notQuarry = join(root, 'documents');
    writeFileSync(join(root, 'placeholder'), '');
    cpSync(join(root, 'placeholder'), join(notQuarry, 'letter.txt'));
    const refusedForeign = await quarry(notQuarry, 'restore', backupDir, '--force');
    expect(refusedForeign.err).toContain('does not look like a Quarry data directory');
    expect(readdirSync(notQuarry)).toEqual(['letter.txt']);

    const forced = await quarry(restored, 'restore', backupDir, '--force');
    expect(forced).toMatchObject({ code: 0, err: '' });
  }, 120_000);

  it('refuses a backup with one byte changed, naming the file, and writes nothing', async () => {
    const damaged = join(root, 'damaged');
    cpSync(backupDir, damaged, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(damaged, 'manifest.json'), 'utf8'));
    const file = manifest.tables.find((t: { table: string }) => t.table === 'research_outputs').file as string;
    const bytes = readFileSync(join(damaged, file));
    const at = Math.floor(bytes.length / 2);
    bytes[at] = bytes[at]! ^ 0x01;
    writeFileSync(join(damaged, file), bytes);

    const target = join(root, 'from-damaged');
    const run = await quarry(target, 'restore', damaged);
    expect(run.code).toBe(1);
    expect(run.err).toContain(`${file} does not match its SHA-256 in manifest.json`);
    expect(existsSync(target)).toBe(false);

    // The manifest itself is covered by manifest.sha256.
    cpSync(backupDir, join(root, 'damaged-manifest'), { recursive: true });
    const text = readFileSync(join(root, 'damaged-manifest', 'manifest.json'), 'utf8');
    writeFileSync(join(root, 'damaged-manifest', 'manifest.json'), text.replace('"quarry-backup"', '"quarry-backuq"'));
    const run2 = await quarry(target, 'restore', join(root, 'damaged-manifest'));
    expect(run2.err).toContain('manifest.json does not match its SHA-256 in manifest.sha256');
  }, 60_000);
});
