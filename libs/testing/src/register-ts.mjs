// `node --import <path>/libs/testing/src/register-ts.mjs file.ts`: run TypeScript in a child
// process (a service's main, a fixture, `quarry start` from sources) with the same hooks the
// workspace's Jest setup uses (ts-hooks.mjs: @swc/core, `quarry-source` resolution).
import { register } from 'node:module';

register(new URL('./ts-hooks.mjs', import.meta.url));
