import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildDescriptorSet, runBuf } from './buf.js';
import { deriveCatalogue } from './derive.js';
import { renderCatalogueModule, renderDescriptorSetModule, stripSourceInfo } from './render.js';

/**
 * The contract pipeline behind `npm run proto` and `npm run proto:check` (the imperative shell
 * around the pure derivation): buf lint → buf generate (ts-proto) → buf build → derive the tool
 * catalogue → render. Everything is produced into a fresh temporary directory first; `write`
 * then syncs it into src/gen, `check` compares it with src/gen and reports the differences.
 * Paths are relative to the repository root, as in proto/buf.gen.yaml.
 */

const PROTO_DIR = 'proto';
const TEMPLATE = 'proto/buf.gen.yaml';
/** Where buf.gen.yaml sends ts-proto's output, and where the catalogue files go too. */
export const GEN_DIR = 'libs/contracts/src/gen';

export interface GenerateOptions {
  readonly repoRoot: string;
  readonly mode: 'write' | 'check';
}

export interface FileChange {
  readonly path: string;
  readonly kind: 'added' | 'removed' | 'changed';
  /** For a changed file: the first line that differs. */
  readonly detail?: string;
}

export interface GenerateResult {
  readonly tools: readonly string[];
  /** Differences between src/gen and what the protos produce (before writing, in write mode). */
  readonly changes: readonly FileChange[];
  readonly elapsedMs: number;
}

export function generateContracts({ repoRoot, mode }: GenerateOptions): GenerateResult {
  const started = performance.now();
  const stage = mkdtempSync(join(tmpdir(), 'quarry-contracts-'));
  try {
    runBuf(['lint', PROTO_DIR], repoRoot);
    runBuf(['generate', '--template', TEMPLATE, '-o', stage], repoRoot);
    const descriptorSet = buildDescriptorSet(repoRoot, PROTO_DIR);
    const tools = deriveCatalogue(descriptorSet);
    const staged = join(stage, GEN_DIR);
    mkdirSync(staged, { recursive: true });
    writeFileSync(join(staged, 'catalogue.ts'), renderCatalogueModule(tools));
    writeFileSync(join(staged, 'descriptor-set.ts'), renderDescriptorSetModule(stripSourceInfo(descriptorSet)));

    const target = join(repoRoot, GEN_DIR);
    const wanted = readTree(staged);
    const current = readTree(target);
    const changes = compareTrees(current, wanted);
    if (mode === 'write') syncTree(target, changes, wanted);
    return { tools: tools.map((t) => t.name), changes, elapsedMs: performance.now() - started };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/** One line per change, for people: what is stale and how to fix it. */
export function describeChanges(changes: readonly FileChange[]): string {
  return changes
    .map((c) => `  ${c.kind.padEnd(7)} ${GEN_DIR}/${c.path}${c.detail ? `\n          ${c.detail}` : ''}`)
    .join('\n');
}

function readTree(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let entries: string[];
  try {
    entries = readdirSync(root, { recursive: true, encoding: 'utf8' });
  } catch {
    return files; // no directory yet: everything is "added"
  }
  for (const path of entries.sort()) {
    const full = join(root, path);
    if (statSync(full).isFile()) files.set(path.split('\\').join('/'), readFileSync(full));
  }
  return files;
}

function compareTrees(current: Map<string, Buffer>, wanted: Map<string, Buffer>): FileChange[] {
  const changes: FileChange[] = [];
  for (const [path, content] of wanted) {
    const existing = current.get(path);
    if (!existing) changes.push({ path, kind: 'added' });
    else if (!existing.equals(content))
      changes.push({ path, kind: 'changed', detail: firstDifference(existing, content) });
  }
  for (const path of current.keys()) if (!wanted.has(path)) changes.push({ path, kind: 'removed' });
  return changes.sort((a, b) => (a.path < b.path ? -1 : 1));
}

function firstDifference(current: Buffer, wanted: Buffer): string {
  const a = current.toString('utf8').split('\n');
  const b = wanted.toString('utf8').split('\n');
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  const clip = (s: string | undefined) =>
    s === undefined ? '(end of file)' : JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s);
  return `line ${line + 1}: has ${clip(a[line])}, protos give ${clip(b[line])}`;
}

function syncTree(root: string, changes: readonly FileChange[], wanted: Map<string, Buffer>): void {
  for (const change of changes) {
    const full = join(root, change.path);
    if (change.kind === 'removed') {
      rmSync(full);
      removeEmptyParents(dirname(full), root);
    } else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, wanted.get(change.path)!);
    }
  }
}

function removeEmptyParents(dir: string, root: string): void {
  while (dir.startsWith(root) && dir !== root && readdirSync(dir).length === 0) {
    rmdirSync(dir);
    dir = dirname(dir);
  }
}
