import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDescriptorSet, runBuf } from '../../src/catalogue/buf.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const repoRoot = resolve(packageDir, '../..');
const mcpProtos = ['options.proto', 'sampling.proto', 'elicitation.proto'].map((name) =>
  join(repoRoot, 'proto/quarry/mcp/v1', name),
);

/**
 * Builds a throwaway buf module holding `files` (path → proto source) next to the real
 * quarry/mcp/v1 protos (options, sampling, elicitation), and returns its FileDescriptorSet with source info, exactly as
 * the generator builds proto/. With `lint`, `buf lint` (STANDARD) must pass first.
 */
export function buildModule(
  files: Record<string, string> | { copyFrom: string },
  options: { lint?: boolean } = {},
): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'quarry-fixture-'));
  try {
    if ('copyFrom' in files) cpSync(files.copyFrom, dir, { recursive: true });
    else {
      writeFileSync(join(dir, 'buf.yaml'), 'version: v2\nlint:\n  use:\n    - STANDARD\n');
      for (const [path, source] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), source);
      }
    }
    mkdirSync(join(dir, 'quarry/mcp/v1'), { recursive: true });
    for (const proto of mcpProtos) cpSync(proto, join(dir, 'quarry/mcp/v1', proto.split('/').pop()!));
    if (options.lint) runBuf(['lint'], dir);
    return buildDescriptorSet(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The fixture module in test/fixtures/proto (package quarry.fixture.v1). */
export function buildFixture(): Uint8Array {
  return buildModule({ copyFrom: join(packageDir, 'test/fixtures/proto') }, { lint: true });
}
