import { chaosPassed, chaosReportLines } from './core/report.js';
import { FULL_PROFILE, SHORT_PROFILE } from './core/schedule.js';
import { runChaos } from './run.js';

// `npm run chaos [-- --short]`: the full run (every service killed once) or the CI one; the
// exit code is 1 on any lost, duplicated or resurrected item, unexpected answer or fault that
// did not heal.

const short = process.argv.includes('--short');
const report = await runChaos(short ? SHORT_PROFILE : FULL_PROFILE, (line) => console.log(line));
for (const line of chaosReportLines(report)) console.log(line);
process.exitCode = chaosPassed(report) ? 0 : 1;
