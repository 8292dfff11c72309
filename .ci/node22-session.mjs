#!/usr/bin/env node
// The container images run Node 22 while the tests run on the machine's Node 20: this runs the
// built system under an npm-shipped Node 22 binary (`quarry start` on embedded defaults in a
// fresh data directory), one research session against it (`quarry smoke`, also on Node 22), and
// an orderly Ctrl-C. Any failure exits 1 with what went wrong.
//
//   node .ci/node22-session.mjs            (after `npm run build`)
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchNode22, quarryBin, startQuarry, stopQuarry } from './node22.mjs';

const work = mkdtempSync(join(tmpdir(), 'quarry-node22-'));
// The embedded PostgreSQL runs as an unprivileged user when we are root: it must traverse.
chmodSync(work, 0o711);

function fail(message) {
  console.error(`node22-session: ${message}`);
  process.exitCode = 1;
}

const { node, version, source } = fetchNode22(work);
console.log(`node22-session: ${version} from ${source}`);
const env = { ...process.env, QUARRY_DATA_DIR: join(work, 'data'), PORT: '0', LOG_LEVEL: 'warn' };
const system = startQuarry(node, env);
try {
  const url = await system.url;
  console.log(`node22-session: quarry start serves ${url}`);
  const smoke = spawnSync(node, [quarryBin, 'smoke', '--url', url], { env, encoding: 'utf8', timeout: 120_000 });
  process.stdout.write(smoke.stdout);
  if (smoke.status !== 0) fail(`quarry smoke failed (exit ${smoke.status ?? smoke.signal}):\n${smoke.stderr}`);
} catch (error) {
  fail(error.message);
} finally {
  const problem = await stopQuarry(system);
  if (problem) fail(problem);
  else console.log('node22-session: quarry start stopped cleanly');
  rmSync(work, { recursive: true, force: true });
}
