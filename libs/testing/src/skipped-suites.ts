import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A suite that cannot run here (no browser) leaves one line in its package's
// test-output/skipped-suites/ (gitignored, an Nx output of `test` so a cached run replays it).
// The package's Jest run prints them at its end (jest-skipped-suites-reporter.mjs) and the root
// `npm test` once more after everything (scripts/test-run-summary.mjs), so a skip is never silent.
const SKIPPED_SUITES = join('test-output', 'skipped-suites');

/** Notes that `suite` (a test file's name) did not run in the package at `packageDir`, and why. */
export function recordSkippedSuite(packageDir: string, suite: string, why: string): void {
  const dir = join(packageDir, SKIPPED_SUITES);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${suite.replace(/[^\w.-]+/g, '_')}.txt`), `${suite}: ${why}\n`);
}

/** The lines recorded in the package at `packageDir`, sorted; none when nothing skipped. */
export function readSkippedSuites(packageDir: string): string[] {
  const dir = join(packageDir, SKIPPED_SUITES);
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.txt'));
  } catch {
    return [];
  }
  return files
    .sort()
    .map((file) => readFileSync(join(dir, file), 'utf8').trim())
    .filter(Boolean);
}

/** Forgets what an earlier run of the package at `packageDir` recorded. */
export function clearSkippedSuites(packageDir: string): void {
  rmSync(join(packageDir, SKIPPED_SUITES), { recursive: true, force: true });
}

/** The banner printed after a run that skipped suites: impossible to scroll past unseen. */
export function skippedSuitesBanner(lines: readonly string[]): string {
  const rule = '!'.repeat(100);
  return [
    '',
    rule,
    `!! ${lines.length} test suite(s) SKIPPED: they did not run, so this run did not test what they cover.`,
    ...lines.map((line) => `!!   ${line}`),
    rule,
    '',
  ].join('\n');
}
