// The last step of the root `npm test`: repeats, after every package's output, the suites that
// were skipped (each package's Jest run recorded them in its test-output/skipped-suites/, see
// libs/testing/src/skipped-suites.ts). `--clear` (the first step) forgets an earlier run's.
// It only prints: the exit status of `npm test` stays that of the checks, whatever happens here.
import { readdirSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

register('../libs/testing/src/ts-hooks.mjs', import.meta.url);
const { clearSkippedSuites, readSkippedSuites, skippedSuitesBanner } =
  await import('../libs/testing/src/skipped-suites.ts');

const root = fileURLToPath(new URL('..', import.meta.url));
const packages = ['libs', 'services', 'apps', 'deploy'].flatMap((layer) => {
  const dir = join(root, layer);
  if (layer === 'deploy') return [{ name: layer, dir }];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: `${layer}/${entry.name}`, dir: join(dir, entry.name) }));
});

if (process.argv.includes('--clear')) {
  for (const { dir } of packages) clearSkippedSuites(dir);
} else {
  const lines = packages.flatMap(({ name, dir }) => readSkippedSuites(dir).map((line) => `${name}: ${line}`));
  if (lines.length > 0) console.log(skippedSuitesBanner(lines));
}
