import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { dockerfileProblems, dockerignoreMatcher, expandGlob, parseDockerfile } from './dockerfile-check.js';
import { repoRoot } from './support.js';
import { IMAGE_TARGETS } from './spec.js';

// The Dockerfile at the repository root, checked without a Docker engine: every file it copies
// from the build context exists and is not excluded by .dockerignore, every target of
// deploy-spec exists, runs as `node` on Node 22 slim, and starts a compiled entrypoint whose
// TypeScript source exists.

const TARGETS = Object.keys(IMAGE_TARGETS);
const DEFAULT_ARGS = { cli: ['migrate'] };

describe('the repository Dockerfile', () => {
  it('and .dockerignore exist', () => {
    expect(existsSync(join(repoRoot, 'Dockerfile'))).toBe(true);
    expect(existsSync(join(repoRoot, '.dockerignore'))).toBe(true);
  });

  it('has every target, each copying only what the context holds and starting a compiled service', () => {
    const problems = dockerfileProblems({
      dockerfile: readFileSync(join(repoRoot, 'Dockerfile'), 'utf8'),
      dockerignore: readFileSync(join(repoRoot, '.dockerignore'), 'utf8'),
      root: repoRoot,
      targets: TARGETS,
      defaultArgs: DEFAULT_ARGS,
    });
    expect(problems).toEqual([]);
  });

  it('.dockerignore keeps node_modules, dist and .git out of the context', () => {
    const { ignored } = dockerignoreMatcher(readFileSync(join(repoRoot, '.dockerignore'), 'utf8'));
    for (const path of [
      'node_modules/yaml/package.json',
      'services/gateway/node_modules/x/index.js',
      'libs/db/dist/index.js',
      '.git/HEAD',
    ]) {
      expect({ path, ignored: ignored(path) }).toEqual({ path, ignored: true });
    }
    expect(ignored('services/gateway/src/main.ts')).toBe(false);
  });
});

describe('dockerignoreMatcher', () => {
  it('applies directory patterns, ** and the last matching rule', () => {
    const { ignored } = dockerignoreMatcher('**/node_modules\n*.log\ndeploy/*\n!deploy/package.json\n/docs/\n');
    expect(ignored('node_modules/x/index.js')).toBe(true);
    expect(ignored('services/gateway/node_modules/x')).toBe(true);
    expect(ignored('deploy/base/gateway.yaml')).toBe(true);
    expect(ignored('deploy/package.json')).toBe(false);
    expect(ignored('docs/adr/0001.md')).toBe(true);
    expect(ignored('a.log')).toBe(true);
    expect(ignored('services/a.log')).toBe(false);
    expect(ignored('services/gateway/src/main.ts')).toBe(false);
  });

  it('knows when an exception brings back part of an excluded directory (an allow-list)', () => {
    const { ignored, reincludesUnder } = dockerignoreMatcher('*\n!libs/*/dist\n');
    expect(ignored('libs')).toBe(true);
    expect(ignored('libs/db/src/index.ts')).toBe(true);
    expect(ignored('libs/db/dist/index.js')).toBe(false);
    expect(reincludesUnder('libs')).toBe(true);
    expect(reincludesUnder('services')).toBe(false);
  });
});

describe('deploy/tilt/Dockerfile and the Tiltfile', () => {
  const tiltDockerfile = join(repoRoot, 'deploy', 'tilt', 'Dockerfile');
  const tiltfile = join(repoRoot, 'Tiltfile');

  it('copies only what its own Dockerfile.dockerignore lets into the context', () => {
    const problems = dockerfileProblems({
      dockerfile: readFileSync(tiltDockerfile, 'utf8'),
      dockerignore: readFileSync(`${tiltDockerfile}.dockerignore`, 'utf8'),
      root: repoRoot,
      targets: [],
    });
    expect(problems).toEqual([]);
  });

  it('names Dockerfiles, targets and manifests that exist', () => {
    const text = readFileSync(tiltfile, 'utf8');
    const stages = new Set(
      parseDockerfile(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8')).stages.map((s) => s.name),
    );
    const targets = [...text.matchAll(/\btarget\s*=\s*'([^']+)'/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((t) => !stages.has(t))).toEqual([]);
    const files = [...text.matchAll(/'((?:deploy|charts)\/[\w./-]+|Dockerfile)'/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !existsSync(join(repoRoot, f)))).toEqual([]);
  });
});

describe('dockerfileProblems on a scratch context', () => {
  const root = mkdtempSync(join(tmpdir(), 'quarry-dockerfile-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  for (const file of [
    'package.json',
    'libs/a/package.json',
    'libs/b/package.json',
    'services/api/src/main.ts',
    'secret.env',
  ]) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), '');
  }
  const good = `FROM node:22-bookworm-slim AS base
WORKDIR /app
ENV NODE_ENV=production
COPY package.json ./
COPY libs/*/package.json ./libs/
USER node
FROM base AS api
CMD ["node", "services/api/dist/main.js"]
`;
  const check = (dockerfile: string, dockerignore = 'secret.env\n') =>
    dockerfileProblems({ dockerfile, dockerignore, root, targets: ['api'] });

  it('finds nothing wrong with a correct Dockerfile', () => {
    expect(expandGlob(root, 'libs/*/package.json')).toEqual(['libs/a/package.json', 'libs/b/package.json']);
    expect(check(good)).toEqual([]);
  });

  it('reports a missing COPY source, an ignored one, an empty glob and an unknown --from stage', () => {
    const broken = good.replace(
      'COPY package.json ./',
      'COPY package.json missing.json secret.env ./\nCOPY apps/*/package.json ./\nCOPY --from=builder /out ./',
    );
    expect(check(broken)).toEqual([
      'line 4: COPY missing.json: no such file in the build context',
      'line 4: COPY secret.env: excluded by .dockerignore',
      'line 5: COPY apps/*/package.json: no such file in the build context',
      'line 6: COPY --from=builder: no such stage',
    ]);
  });

  it('reports a missing target, a wrong base, root, no NODE_ENV, and an entrypoint without a source', () => {
    expect(check(good.replace('AS api', 'AS web'))).toEqual(['target api: no stage named api']);
    expect(check(good.replace('node:22-bookworm-slim', 'node:20'))).toEqual([
      'target api: base image node:20 is not node:22-*-slim',
    ]);
    expect(check(good.replace('USER node\n', ''))).toEqual(['target api: does not run as user node']);
    expect(check(good.replace('ENV NODE_ENV=production\n', ''))).toEqual([
      'target api: NODE_ENV=production is not set',
    ]);
    expect(check(good.replace('dist/main.js', 'dist/server.js'))).toEqual([
      'target api: services/api/dist/server.js has no source services/api/src/server.ts',
    ]);
    expect(check(good.replace('"node", ', ''))).toEqual([
      'target api: command ["services/api/dist/main.js"] is not node services/api/dist/….js (or apps/)',
    ]);
  });
});
