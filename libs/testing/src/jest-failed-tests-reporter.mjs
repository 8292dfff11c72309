// Jest reporter (every package's, through jest.preset.js): records each failing test with the
// head of its message in the package's test-output/failed-tests/, which the root `npm test`
// prints after every package (scripts/test-run-summary.mjs). Jest's own output has it too, but
// far up a long log, interleaved with the other packages running at the same time.
import { register } from 'node:module';
import { relative } from 'node:path';

if (!globalThis.__quarryTsHooks) {
  register('./ts-hooks.mjs', import.meta.url);
  globalThis.__quarryTsHooks = true;
}
const { clearFailedTests, recordFailedTests } = await import('./failed-tests.ts');

export default class FailedTestsReporter {
  // Jest runs from the package's directory (process.cwd()).
  onRunStart() {
    clearFailedTests(process.cwd());
  }

  onTestResult(_test, result) {
    const failures = result.testResults
      .filter((test) => test.status === 'failed')
      .map((test) => ({ name: test.fullName, message: test.failureMessages.join('\n') }));
    // A suite that could not run at all (a syntax error, a throw outside any test) has no failed
    // test to show; its own message says why.
    if (result.testExecError && failures.length === 0)
      failures.push({ name: '(suite)', message: result.failureMessage ?? String(result.testExecError.message) });
    recordFailedTests(process.cwd(), relative(process.cwd(), result.testFilePath), failures);
  }
}
