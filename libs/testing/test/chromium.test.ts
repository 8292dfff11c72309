import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumForSuite, isExecutableFile, locateChromium, SYSTEM_CHROMIUMS } from '../src/chromium.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
const only =
  (...present: string[]) =>
  (path: string) =>
    present.includes(path);

describe('locateChromium', () => {
  it('uses QUARRY_CHROMIUM when it names an executable, before any system Chromium', () => {
    const env = { QUARRY_CHROMIUM: '/opt/chrome/chrome' };
    expect(locateChromium(env, only('/opt/chrome/chrome', '/usr/bin/chromium'), CANDIDATES)).toEqual({
      found: '/opt/chrome/chrome',
    });
  });

  it('fails, naming it, when QUARRY_CHROMIUM is set but not there, even with a system Chromium and nothing required', () => {
    const lookup = locateChromium({ QUARRY_CHROMIUM: '/opt/typo/chrome' }, only('/usr/bin/chromium'), CANDIDATES);
    expect(lookup).toEqual({
      fail: expect.stringContaining('QUARRY_CHROMIUM=/opt/typo/chrome is not an executable file'),
    });
  });

  it('takes the first system Chromium present when QUARRY_CHROMIUM is unset or empty', () => {
    expect(locateChromium({}, only('/usr/bin/chromium-browser'), CANDIDATES)).toEqual({
      found: '/usr/bin/chromium-browser',
    });
    expect(locateChromium({ QUARRY_CHROMIUM: '' }, only(...CANDIDATES), CANDIDATES)).toEqual({
      found: '/usr/bin/chromium',
    });
  });

  it('skips, with the install line and every place looked at, when there is none and none is required', () => {
    const lookup = locateChromium({}, only(), CANDIDATES);
    expect(lookup).toEqual({ skip: expect.stringContaining('apt-get install -y chromium') });
    expect('skip' in lookup && lookup.skip).toContain('QUARRY_CHROMIUM');
    expect('skip' in lookup && lookup.skip).toContain('/usr/bin/chromium, /usr/bin/chromium-browser');
  });

  it('fails instead of skipping when QUARRY_REQUIRE_BROWSER=1 (CI)', () => {
    const lookup = locateChromium({ QUARRY_REQUIRE_BROWSER: '1' }, only(), CANDIDATES);
    expect(lookup).toEqual({ fail: expect.stringContaining('QUARRY_REQUIRE_BROWSER=1') });
    expect('fail' in lookup && lookup.fail).toContain('apt-get install -y chromium');
  });

  it('does not fail a required run that has a browser', () => {
    expect(locateChromium({ QUARRY_REQUIRE_BROWSER: '1' }, only('/usr/bin/chromium'), CANDIDATES)).toEqual({
      found: '/usr/bin/chromium',
    });
  });

  it("looks at Debian's and Ubuntu's usual paths, Debian's chromium first", () => {
    expect(SYSTEM_CHROMIUMS[0]).toBe('/usr/bin/chromium');
    expect(SYSTEM_CHROMIUMS).toContain('/usr/bin/chromium-browser');
  });
});

describe('isExecutableFile and chromiumForSuite on real files', () => {
  let dir: string;
  let saved: Record<string, string | undefined>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'quarry-chromium-'));
    saved = {
      QUARRY_CHROMIUM: process.env.QUARRY_CHROMIUM,
      QUARRY_REQUIRE_BROWSER: process.env.QUARRY_REQUIRE_BROWSER,
    };
  });
  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts an executable file only: not a plain file, a directory or a missing path', () => {
    const binary = join(dir, 'chrome');
    writeFileSync(binary, '#!/bin/sh\n');
    expect(isExecutableFile(binary)).toBe(false);
    chmodSync(binary, 0o755);
    expect(isExecutableFile(binary)).toBe(true);
    mkdirSync(join(dir, 'folder'), { mode: 0o755 });
    expect(isExecutableFile(join(dir, 'folder'))).toBe(false);
    expect(isExecutableFile(join(dir, 'missing'))).toBe(false);
  });

  it('hands a suite the QUARRY_CHROMIUM binary, and throws naming it when it is missing', () => {
    const binary = join(dir, 'chrome');
    writeFileSync(binary, '#!/bin/sh\n', { mode: 0o755 });
    process.env.QUARRY_CHROMIUM = binary;
    expect(chromiumForSuite('a.test.ts')).toEqual({ executablePath: binary });
    process.env.QUARRY_CHROMIUM = join(dir, 'missing');
    expect(() => chromiumForSuite('a.test.ts')).toThrow(
      `QUARRY_CHROMIUM=${join(dir, 'missing')} is not an executable file`,
    );
  });
});
