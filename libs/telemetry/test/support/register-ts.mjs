// `node --import ./test/support/register-ts.mjs script.ts`: run TypeScript in a child process,
// with the same hooks the workspace's Jest setup uses (libs/testing/src/ts-hooks.mjs).
import { register } from 'node:module';

register(new URL('../../../testing/src/ts-hooks.mjs', import.meta.url));
