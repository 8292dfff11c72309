// The registry mirror these machines reach serves only some platform builds, so `npm install`
// cannot record the other platforms' optional packages and `npm ci` then rejects the lockfile.
// This adds the missing optional entries, gated by os/cpu/libc parsed from the package name, so
// every platform's `npm ci` accepts the lock and skips the builds that are not its own.
// Run after `npm install` changes the lockfile: `node .ci/lockfile-platforms.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix'];
const CPU = {
  x64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  aarch64: 'arm64',
  armv7: 'arm',
};

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  if (!os || !cpu) return undefined;
  const libc = parts.some((p) => p.startsWith('musl'))
    ? ['musl']
    : os === 'linux' && parts.some((p) => p.startsWith('gnu'))
      ? ['glibc']
      : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === '' ? '' : `${path}/`;
    const key = `${base}node_modules/${dep}`.replace(/^\//, '');
    const hoisted = `node_modules/${dep}`;
    if (lock.packages[key] || lock.packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform) continue;
    lock.packages[hoisted] = { version: range.replace(/^[\^~=]/, ''), optional: true, ...platform };
    added += 1;
  }
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lockfile-platforms: added ${added} platform-gated optional entries`);
