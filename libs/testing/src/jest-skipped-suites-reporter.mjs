// Jest reporter (every package's, through jest.preset.js): forgets the skips an earlier run of
// this package recorded, and after the summary prints the suites that skipped in this one (no
// browser here), so a skip shows at the end of the package's run and not only as a count.
// Jest loads reporters outside its module system, hence the TypeScript hooks (as globalSetup).
import { register } from 'node:module';

if (!globalThis.__quarryTsHooks) {
  register('./ts-hooks.mjs', import.meta.url);
  globalThis.__quarryTsHooks = true;
}
const { clearSkippedSuites, readSkippedSuites, skippedSuitesBanner } = await import('./skipped-suites.ts');

export default class SkippedSuitesReporter {
  // Jest runs from the package's directory, as the suites that record a skip do (process.cwd()).
  onRunStart() {
    clearSkippedSuites(process.cwd());
  }

  onRunComplete() {
    const lines = readSkippedSuites(process.cwd());
    if (lines.length > 0) process.stderr.write(`${skippedSuitesBanner(lines)}\n`);
  }
}
