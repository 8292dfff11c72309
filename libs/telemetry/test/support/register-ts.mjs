// `node --import ./test/support/register-ts.mjs script.ts`: run TypeScript in a child process.
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
