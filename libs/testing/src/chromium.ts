import { accessSync, constants, statSync } from 'node:fs';
import { recordSkippedSuite } from './skipped-suites.js';

/** Where Debian's and Ubuntu's packages put a Chromium (or Chrome) that playwright-core can drive. */
export const SYSTEM_CHROMIUMS: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
];

const INSTALL = 'apt-get install -y chromium, or set QUARRY_CHROMIUM to a Chromium binary';

/**
 * Which Chromium the browser suites drive: `found` (its path), `skip` (none here and none
 * required: the suites skip, saying why) or `fail` (the run must not pass without one).
 */
export type ChromiumLookup = { found: string } | { skip: string } | { fail: string };

/**
 * The one decision every browser suite makes. An explicit `QUARRY_CHROMIUM` must exist (a typo
 * should not turn into a silent skip); otherwise the first system Chromium; otherwise none, which
 * fails when `QUARRY_REQUIRE_BROWSER=1` (CI installs Chromium, so it never skips these suites).
 */
export function locateChromium(
  env: Readonly<Record<string, string | undefined>>,
  isExecutable: (path: string) => boolean,
  candidates: readonly string[] = SYSTEM_CHROMIUMS,
): ChromiumLookup {
  const explicit = env.QUARRY_CHROMIUM;
  if (explicit) {
    return isExecutable(explicit)
      ? { found: explicit }
      : {
          fail: `QUARRY_CHROMIUM=${explicit} is not an executable file: fix the path, or unset it to use ${candidates[0]}`,
        };
  }
  const system = candidates.find(isExecutable);
  if (system) return { found: system };
  const missing = `no Chromium (QUARRY_CHROMIUM unset, none of ${candidates.join(', ')})`;
  return env.QUARRY_REQUIRE_BROWSER === '1'
    ? { fail: `${missing} and QUARRY_REQUIRE_BROWSER=1: ${INSTALL}` }
    : { skip: `${missing}: ${INSTALL}` };
}

/** A regular file this process may execute (a directory or an unreadable path is no browser). */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A browser suite's Chromium: the path to launch, or why the suite skips. */
export type SuiteChromium =
  { executablePath: string; skipped?: undefined } | { executablePath?: undefined; skipped: string };

/**
 * For a browser suite, at load: the Chromium to launch, or why the suite skips (recorded so the
 * end of the package's Jest run and of the root `npm test` say so). Throws when a browser is
 * required but missing, which fails the suite.
 */
export function chromiumForSuite(suite: string): SuiteChromium {
  const lookup = locateChromium(process.env, isExecutableFile);
  if ('fail' in lookup) throw new Error(lookup.fail);
  if ('found' in lookup) return { executablePath: lookup.found };
  recordSkippedSuite(process.cwd(), suite, lookup.skip);
  return { skipped: lookup.skip };
}
