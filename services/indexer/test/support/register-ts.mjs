// `node --import ./test/support/register-ts.mjs src/main.ts`: run the indexer's TypeScript (and the
// workspace packages' sources, through the `quarry-source` condition) in a child process, compiled
// by @swc/core as Jest does. Test-only.
import { register } from 'node:module';

register(new URL('../../../../libs/testing/src/ts-hooks.mjs', import.meta.url));
