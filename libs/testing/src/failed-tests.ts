import { stripVTControlCharacters } from 'node:util';
import { clearSuiteRecords, readSuiteRecords, writeSuiteRecord } from './suite-records.js';

// A failing test leaves its name and the head of its message in its package's
// test-output/failed-tests/ (gitignored), so the root `npm test` can repeat every failure after
// all packages' output (scripts/test-run-summary.mjs): a CI log read from its end then says
// which test failed and why, not only which package.
const FAILED_TESTS = 'failed-tests';

/** Lines of one failure message that are kept: enough for the assertion and the first frames. */
const MESSAGE_LINES = 16;

export interface FailedTest {
  /** The test's full name (describe blocks and title), or the suite's when it failed to run. */
  name: string;
  message: string;
}

/** Notes the failures of `suite` (a test file's path in the package at `packageDir`). */
export function recordFailedTests(packageDir: string, suite: string, failures: readonly FailedTest[]): void {
  if (failures.length === 0) return;
  const text = failures.map((failure) => `${suite} › ${failure.name}\n${indent(headOf(failure.message))}`).join('\n');
  writeSuiteRecord(packageDir, FAILED_TESTS, suite, text);
}

/** The failures recorded in the package at `packageDir`, one block per suite, sorted. */
export function readFailedTests(packageDir: string): string[] {
  return readSuiteRecords(packageDir, FAILED_TESTS);
}

/** Forgets what an earlier run of the package at `packageDir` recorded. */
export function clearFailedTests(packageDir: string): void {
  clearSuiteRecords(packageDir, FAILED_TESTS);
}

/** The summary printed last when tests failed: each failure with the head of its message. */
export function failedTestsBanner(blocks: readonly string[]): string {
  const rule = 'x'.repeat(100);
  return ['', rule, `xx FAILED tests (${blocks.length} suite(s)):`, ...blocks, rule, ''].join('\n');
}

function headOf(message: string): string {
  // Jest's messages carry colours, which a log read as text does not want; frames inside
  // node_modules (Jest's runner) say nothing about the failure.
  const lines = stripVTControlCharacters(message)
    .split('\n')
    .filter((line) => !/^\s+at .*\/node_modules\//.test(line));
  const head = lines.slice(0, MESSAGE_LINES);
  if (lines.length > MESSAGE_LINES) head.push(`… ${lines.length - MESSAGE_LINES} more line(s)`);
  return head.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
