import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearFailedTests, failedTestsBanner, readFailedTests, recordFailedTests } from '../src/failed-tests.js';

describe('the record of failed tests', () => {
  let packageDir: string;
  beforeEach(() => {
    packageDir = mkdtempSync(join(tmpdir(), 'quarry-failed-'));
  });
  afterEach(() => rmSync(packageDir, { recursive: true, force: true }));

  it('is empty for a package where nothing failed, and a suite without failures adds nothing', () => {
    recordFailedTests(packageDir, 'test/fine.test.ts', []);
    expect(readFailedTests(packageDir)).toEqual([]);
  });

  it('keeps each failing test with the head of its message, colours removed, until cleared', () => {
    const long = [
      '\u001b[31mexpect(received).toBe(expected)\u001b[39m',
      ...Array.from({ length: 30 }, (_, i) => `  at frame ${i}`),
    ];
    recordFailedTests(packageDir, 'test/b.test.ts', [{ name: 'b fails', message: long.join('\n') }]);
    recordFailedTests(packageDir, 'test/a.test.ts', [
      { name: 'a one', message: 'boom\n    at run (/repo/node_modules/jest-circus/build/runner.js:1:1)' },
      { name: 'a two', message: 'bang' },
    ]);
    const blocks = readFailedTests(packageDir);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toBe('test/a.test.ts › a one\n    boom\ntest/a.test.ts › a two\n    bang');
    expect(blocks[1]).toContain('test/b.test.ts › b fails\n    expect(received).toBe(expected)\n');
    expect(blocks[1]).toContain('at frame 14\n    … 15 more line(s)');
    expect(blocks[1]).not.toContain('frame 15');
    clearFailedTests(packageDir);
    expect(readFailedTests(packageDir)).toEqual([]);
  });

  it('prints a banner that counts the suites and gives each failure', () => {
    const banner = failedTestsBanner(['services/gateway: test/x.test.ts › it works\n    boom']);
    expect(banner).toContain('FAILED tests (1 suite(s))');
    expect(banner).toContain('services/gateway: test/x.test.ts › it works\n    boom');
  });
});
