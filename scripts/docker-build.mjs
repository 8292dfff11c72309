#!/usr/bin/env node
// Builds Quarry's container images: one `docker build --target <svc>` per service target of the
// root Dockerfile, tagged quarry/<svc>:<version> (package.json's version) and :latest (the chart's
// default tag). The first build fills BuildKit's cache with the shared stages, so the others take
// seconds.
//
//   npm run docker:build
//   npm run docker:build -- --only gateway,search --tag dev
//   npm run docker:build -- --registry ghcr.io/acme --push
//
// Needs a running Docker engine; without one it says so and exits 1.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url);
const usage = `Usage: npm run docker:build -- [options]
  --only <a,b>       build only these targets
  --tag <tag>        image tag (default: package.json version, plus latest)
  --registry <host>  prefix image names, e.g. ghcr.io/acme → ghcr.io/acme/quarry/gateway
  --push             push every tag after building
  --dry-run          print the docker commands instead of running them
  --help`;

function fail(message) {
  console.error(`docker-build: ${message}`);
  process.exit(1);
}

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      only: { type: 'string' },
      tag: { type: 'string' },
      registry: { type: 'string' },
      push: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (err) {
  fail(`${err.message}\n${usage}`);
}
if (options.help) {
  console.log(usage);
  process.exit(0);
}

// The service targets are the stages built on the shared `runtime` stage.
const dockerfile = readFileSync(new URL('Dockerfile', root), 'utf8');
const targets = [...dockerfile.matchAll(/^FROM runtime AS (\S+)$/gm)].map((m) => m[1]);
const only = options.only
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = only?.filter((t) => !targets.includes(t)) ?? [];
if (unknown.length) fail(`unknown target(s) ${unknown.join(', ')}; the targets are ${targets.join(', ')}`);

const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const tags = options.tag ? [options.tag] : [version, 'latest'];
const prefix = options.registry ? `${options.registry.replace(/\/+$/, '')}/` : '';
const git = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
const revision = git.status === 0 ? git.stdout.trim() : 'unknown';

function docker(args) {
  console.log(`$ docker ${args.join(' ')}`);
  if (options['dry-run']) return;
  const result = spawnSync('docker', args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, DOCKER_BUILDKIT: '1' },
  });
  if (result.status !== 0) fail(`docker ${args[0]} failed (exit ${result.status ?? result.signal})`);
}

if (!options['dry-run']) {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8' });
  if (info.error?.code === 'ENOENT')
    fail('the docker CLI is not installed (no `docker` on PATH). Install Docker to build the images.');
  if (info.status !== 0) {
    const reason = `${info.stderr ?? ''}`.trim().split('\n').pop();
    fail(
      `cannot reach a Docker engine (\`docker info\` failed${reason ? `: ${reason}` : ''}).\nStart Docker (or point DOCKER_HOST at a running engine) and try again.`,
    );
  }
}

for (const target of only ?? targets) {
  const names = tags.map((tag) => `${prefix}quarry/${target}:${tag}`);
  docker([
    'build',
    '--target',
    target,
    '--build-arg',
    `VERSION=${version}`,
    '--build-arg',
    `REVISION=${revision}`,
    ...names.flatMap((n) => ['-t', n]),
    '.',
  ]);
  if (options.push) for (const name of names) docker(['push', name]);
}
