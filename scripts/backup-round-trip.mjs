// Times `quarry backup` and `quarry restore` on an embedded Quarry holding N artifacts (default
// 10,000), against the alternatives ADR 0055 weighed: rebuilding the search indexes with
// `quarry reindex`, and copying the live LanceDB folder. Runs the CLI from source as separate
// processes, as an operator would: `quarry start`, `quarry import` of a generated JSONL,
// `quarry reindex` (stopped), `quarry backup` (running), `cp -r search/` (running),
// `quarry restore` into a new data directory, then `quarry start` on it and `quarry smoke`.
//
//   node scripts/backup-round-trip.mjs [count]
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const count = Number(process.argv[2] ?? 10_000);
const root = mkdtempSync(join(tmpdir(), 'quarry-backup-bench-'));
const quarryArgs = [
  '--conditions=quarry-source',
  '--import',
  pathToFileURL(join(REPO, 'libs/testing/src/register-ts.mjs')).href,
  join(REPO, 'apps/cli/src/bin.ts'),
];

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Run one quarry command to its end; its wall time in seconds. */
async function quarry(env, ...argv) {
  const began = performance.now();
  const child = spawn(process.execPath, [...quarryArgs, ...argv], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`quarry ${argv.join(' ')} exited ${code}:\n${out}`);
  return { seconds: (performance.now() - began) / 1000, out: out.trim() };
}

/** `quarry start` in the background until it prints its endpoint; stop() sends Ctrl-C. */
async function start(env) {
  const child = spawn(process.execPath, [...quarryArgs, 'start'], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('Quarry is running.')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`quarry start exited ${code}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  };
  stoppers.add(stop);
  return { stop };
}

function sizeOf(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((n, name) => n + sizeOf(join(path, name)), 0);
}

const WORDS = (
  'glacier moraine cirque valley erosion till drumlin esker fjord ice sheet meltwater crevasse serac ' +
  'ablation accumulation firn calving outwash kame arete horn tarn striation plucking abrasion basal ' +
  'sliding permafrost isostatic rebound sediment boulder terminus snout equilibrium line altitude'
).split(' ');
function text(i) {
  const words = [];
  for (let w = 0; w < 160; w++) words.push(WORDS[(i * 7 + w * 13 + ((i * w) % 11)) % WORDS.length]);
  return `${words.join(' ')}. Record ${i}.`;
}

const ms = (s) => `${s.toFixed(1)} s`;
/** Every `quarry start` begun, stopped before the data directories are deleted. */
const stoppers = new Set();
try {
  const original = join(root, 'original');
  const port = String(await freePort());
  const env = { QUARRY_DATA_DIR: original, PORT: port };
  const jsonl = join(root, 'library.jsonl');
  writeFileSync(
    jsonl,
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({ title: `Field note ${i}`, content: text(i), tags: [`t${i % 5}`] }),
    ).join('\n') + '\n',
  );
  let running = await start(env);
  const imported = await quarry(env, 'import', jsonl);
  console.log(`import of ${count} artifacts: ${ms(imported.seconds)}`);
  await running.stop();

  const reindexed = await quarry(env, 'reindex');
  console.log(`quarry reindex (stopped, ${count} artifacts): ${ms(reindexed.seconds)}`);
  console.log(`search/ (LanceDB): ${(sizeOf(join(original, 'search')) / 1024 / 1024).toFixed(1)} MiB`);

  running = await start(env);
  const backupDir = join(root, 'backup');
  const backedUp = await quarry(env, 'backup', backupDir);
  console.log(`quarry backup (running): ${ms(backedUp.seconds)}; ${backedUp.out.split('\n')[0]}`);
  const copyBegan = performance.now();
  cpSync(join(original, 'search'), join(root, 'search-copy'), { recursive: true });
  console.log(`cp -r search/ (running): ${ms((performance.now() - copyBegan) / 1000)}`);
  const smokeOriginal = await quarry(env, 'smoke').catch((error) => ({ failed: error.message.split('\n')[0] }));
  console.log(`quarry smoke on the original: ${smokeOriginal.failed ?? `passed in ${ms(smokeOriginal.seconds)}`}`);
  await running.stop();

  const restored = join(root, 'restored');
  const restoredEnv = { QUARRY_DATA_DIR: restored, PORT: port };
  const restoredRun = await quarry(restoredEnv, 'restore', backupDir);
  console.log(`quarry restore (with the index rebuild): ${ms(restoredRun.seconds)}`);
  console.log(
    restoredRun.out
      .split('\n')
      .filter((l) => l.startsWith('Reindexed') || l.startsWith('Restored'))
      .join('\n'),
  );

  running = await start(restoredEnv);
  const smoke = await quarry(restoredEnv, 'smoke').catch((error) => ({ failed: error.message.split('\n')[0] }));
  console.log(`quarry smoke on the restored data directory: ${smoke.failed ?? `passed in ${ms(smoke.seconds)}`}`);
  await running.stop();
} finally {
  for (const stop of stoppers) await stop();
  // Run as root, each cluster lives in /var/tmp behind a symlink (see @quarry/db): those go too.
  for (const dir of ['original', 'restored']) {
    const cluster = join(root, dir, 'postgres', 'pgdata');
    if (existsSync(cluster) && lstatSync(cluster).isSymbolicLink()) rmSync(realpathSync(cluster), { recursive: true });
  }
  rmSync(root, { recursive: true, force: true });
}
