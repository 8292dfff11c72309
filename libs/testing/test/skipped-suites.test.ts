import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clearSkippedSuites,
  readSkippedSuites,
  recordSkippedSuite,
  skippedSuitesBanner,
} from '../src/skipped-suites.js';

describe('the record of skipped suites', () => {
  let packageDir: string;
  beforeEach(() => {
    packageDir = mkdtempSync(join(tmpdir(), 'quarry-skipped-'));
  });
  afterEach(() => rmSync(packageDir, { recursive: true, force: true }));

  it('is empty for a package where nothing skipped', () => {
    expect(readSkippedSuites(packageDir)).toEqual([]);
  });

  it('keeps one line per suite, why it skipped, sorted, until cleared', () => {
    recordSkippedSuite(packageDir, 'pages.test.ts', 'no Chromium: apt-get install -y chromium');
    recordSkippedSuite(packageDir, 'consent/flow.test.ts', 'no Chromium');
    recordSkippedSuite(packageDir, 'pages.test.ts', 'no Chromium: apt-get install -y chromium');
    expect(readSkippedSuites(packageDir)).toEqual([
      'consent/flow.test.ts: no Chromium',
      'pages.test.ts: no Chromium: apt-get install -y chromium',
    ]);
    clearSkippedSuites(packageDir);
    expect(readSkippedSuites(packageDir)).toEqual([]);
  });

  it('prints a banner that counts the skipped suites and gives each line', () => {
    const banner = skippedSuitesBanner(['services/gateway: pages.test.ts: no Chromium: apt-get install -y chromium']);
    expect(banner).toContain('1 test suite(s) SKIPPED');
    expect(banner).toContain('services/gateway: pages.test.ts: no Chromium: apt-get install -y chromium');
  });
});
