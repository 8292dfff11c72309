import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// What a package's Jest run notes about its suites for the end of `npm test` (the suites it
// skipped, the tests that failed): one text file per suite under the package's test-output/
// (gitignored, an Nx output of `test`), read back sorted, forgotten at the next run's start.

/** Writes `text` as what `suite` (a test file's name) left under `packageDir`/test-output/`kind`. */
export function writeSuiteRecord(packageDir: string, kind: string, suite: string, text: string): void {
  const dir = join(packageDir, 'test-output', kind);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${suite.replace(/[^\w.-]+/g, '_')}.txt`), `${text.trimEnd()}\n`);
}

/** Every suite's record of `kind` in the package at `packageDir`, sorted by suite; none when there are none. */
export function readSuiteRecords(packageDir: string, kind: string): string[] {
  const dir = join(packageDir, 'test-output', kind);
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.txt'));
  } catch {
    return [];
  }
  return files
    .sort()
    .map((file) => readFileSync(join(dir, file), 'utf8').trimEnd())
    .filter(Boolean);
}

/** Forgets the records of `kind` an earlier run of the package at `packageDir` left. */
export function clearSuiteRecords(packageDir: string, kind: string): void {
  rmSync(join(packageDir, 'test-output', kind), { recursive: true, force: true });
}
