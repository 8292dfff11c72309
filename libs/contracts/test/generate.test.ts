import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  appendFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeChanges, GEN_DIR, generateContracts } from '../src/catalogue/generate.js';
import { repoRoot } from './support/buf-fixture.js';

// The pipeline behind `npm run proto` / `npm run proto:check`, run on a copy of proto/ in a
// temporary "repository" (node_modules linked for buf's local ts-proto plugin), so the tests
// can make src/gen stale without touching the real one.

describe('generateContracts', () => {
  let root: string;
  const gen = (path = '') => join(root, GEN_DIR, path);
  const snapshot = () =>
    Object.fromEntries(
      (readdirSync(gen(), { recursive: true, encoding: 'utf8' }) as string[])
        .filter((p) => p.endsWith('.ts'))
        .sort()
        .map((p) => [p, readFileSync(gen(p), 'utf8')]),
    );

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'quarry-generate-'));
    cpSync(join(repoRoot, 'proto'), join(root, 'proto'), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes the ts-proto code, the catalogue and the descriptor set into src/gen', () => {
    const result = generateContracts({ repoRoot: root, mode: 'write' });
    expect(result.tools).toContain('ping');
    expect(result.tools).toContain('get_next_step');
    expect(Object.keys(snapshot())).toEqual([
      'catalogue.ts',
      'descriptor-set.ts',
      'google/protobuf/struct.ts',
      'google/protobuf/timestamp.ts',
      'quarry/artifact/v1/artifact.ts',
      'quarry/extraction/v1/extraction.ts',
      'quarry/identity/v1/identity.ts',
      'quarry/mcp/v1/call_budget.ts',
      'quarry/mcp/v1/elicitation.ts',
      'quarry/mcp/v1/options.ts',
      'quarry/mcp/v1/resource.ts',
      'quarry/mcp/v1/sampling.ts',
      'quarry/plan/v1/plan.ts',
      'quarry/search/v1/search.ts',
    ]);
    // No timestamps, versions or absolute paths in generated files.
    for (const [path, content] of Object.entries(snapshot())) {
      expect(content).not.toContain(root);
      expect(content).not.toMatch(/protoc-gen-ts_proto\s+v|protoc\s+v\d/);
      // The well-known types carry Google's doc comments, which quote example dates.
      if (!path.startsWith('google/')) expect(content).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    }
  });

  it('is deterministic: generating again changes nothing, and matches the committed src/gen', () => {
    const first = snapshot();
    const again = generateContracts({ repoRoot: root, mode: 'write' });
    expect(again.changes).toEqual([]);
    expect(snapshot()).toEqual(first);
    expect(generateContracts({ repoRoot, mode: 'check' }).changes).toEqual([]);
  });

  it('check mode reports every changed, missing and extra file, and writes nothing', () => {
    const catalogue = readFileSync(gen('catalogue.ts'), 'utf8');
    writeFileSync(gen('catalogue.ts'), catalogue.replace('"title": "Ping"', '"title": "Pong"'));
    rmSync(gen('quarry/identity/v1/identity.ts'));
    appendFileSync(gen('stray.ts'), 'export {};\n');

    const { changes } = generateContracts({ repoRoot: root, mode: 'check' });
    expect(changes).toEqual([
      {
        path: 'catalogue.ts',
        kind: 'changed',
        detail: expect.stringMatching(/^line \d+: has ".*Pong.*", protos give ".*Ping.*"$/),
      },
      { path: 'quarry/identity/v1/identity.ts', kind: 'added' },
      { path: 'stray.ts', kind: 'removed' },
    ]);
    expect(describeChanges(changes)).toContain(`changed ${GEN_DIR}/catalogue.ts`);
    expect(readFileSync(gen('catalogue.ts'), 'utf8')).toContain('"title": "Pong"');

    generateContracts({ repoRoot: root, mode: 'write' });
    expect(generateContracts({ repoRoot: root, mode: 'check' }).changes).toEqual([]);
    expect(readdirSync(gen())).not.toContain('stray.ts');
  });

  it('fails on a lint error, naming the file and the rule', () => {
    const proto = join(root, 'proto/quarry/identity/v1/identity.proto');
    const original = readFileSync(proto, 'utf8');
    writeFileSync(proto, original.replace('message PingRequest {}', 'message PingRequest {}\nmessage bad_name {}'));
    try {
      expect(() => generateContracts({ repoRoot: root, mode: 'check' })).toThrow(
        /quarry\/identity\/v1\/identity\.proto.*bad_name.*PascalCase/s,
      );
    } finally {
      writeFileSync(proto, original);
    }
  });
});
