// Prints which Chromium the browser suites would drive here, or why none (libs/testing's
// locateChromium). nx.json hashes this output into every `test` target, so installing or
// removing a browser reruns the suites instead of replaying a cached run that skipped them.
import { register } from 'node:module';

register('../libs/testing/src/ts-hooks.mjs', import.meta.url);
const { locateChromium, isExecutableFile } = await import('../libs/testing/src/chromium.ts');
console.log(JSON.stringify(locateChromium(process.env, isExecutableFile)));
