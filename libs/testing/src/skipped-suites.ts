import { clearSuiteRecords, readSuiteRecords, writeSuiteRecord } from './suite-records.js';

// A suite that cannot run here (no browser) leaves one line in its package's
// test-output/skipped-suites/ (gitignored, an Nx output of `test` so a cached run replays it).
// The package's Jest run prints them at its end (jest-skipped-suites-reporter.mjs) and the root
// `npm test` once more after everything (scripts/test-run-summary.mjs), so a skip is never silent.
const SKIPPED_SUITES = 'skipped-suites';

/** Notes that `suite` (a test file's name) did not run in the package at `packageDir`, and why. */
export function recordSkippedSuite(packageDir: string, suite: string, why: string): void {
  writeSuiteRecord(packageDir, SKIPPED_SUITES, suite, `${suite}: ${why}`);
}

/** The lines recorded in the package at `packageDir`, sorted; none when nothing skipped. */
export function readSkippedSuites(packageDir: string): string[] {
  return readSuiteRecords(packageDir, SKIPPED_SUITES);
}

/** Forgets what an earlier run of the package at `packageDir` recorded. */
export function clearSkippedSuites(packageDir: string): void {
  clearSuiteRecords(packageDir, SKIPPED_SUITES);
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
