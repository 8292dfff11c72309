// The first and last steps of the root `npm test`. Last: repeats, after every package's output,
// the suites that were skipped and the tests that failed (each package's Jest run recorded them
// in its test-output/, see libs/testing/src/skipped-suites.ts and failed-tests.ts), so the end
// of a log says what did not pass. `--clear` (the first step) forgets an earlier run's records.
// It only prints: the exit status of `npm test` stays that of the checks, whatever happens here.
import { readdirSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

register('../libs/testing/src/ts-hooks.mjs', import.meta.url);
const { clearSkippedSuites, readSkippedSuites, skippedSuitesBanner } =
  await import('../libs/testing/src/skipped-suites.ts');
const { clearFailedTests, readFailedTests, failedTestsBanner } = await import('../libs/testing/src/failed-tests.ts');

const root = fileURLToPath(new URL('..', import.meta.url));
const packages = ['libs', 'services', 'apps', 'deploy'].flatMap((layer) => {
  const dir = join(root, layer);
  if (layer === 'deploy') return [{ name: layer, dir }];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: `${layer}/${entry.name}`, dir: join(dir, entry.name) }));
});

if (process.argv.includes('--clear')) {
  for (const { dir } of packages) {
    clearSkippedSuites(dir);
    clearFailedTests(dir);
  }
} else {
  const skipped = packages.flatMap(({ name, dir }) => readSkippedSuites(dir).map((line) => `${name}: ${line}`));
  if (skipped.length > 0) console.log(skippedSuitesBanner(skipped));
  const failed = packages.flatMap(({ name, dir }) => readFailedTests(dir).map((block) => `${name}: ${block}`));
  if (failed.length > 0) console.log(failedTestsBanner(failed));
}
