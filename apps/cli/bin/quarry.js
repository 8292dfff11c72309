#!/usr/bin/env node
// The `quarry` command. A committed launcher so npm can link it on install, before the first
// build; the CLI itself is compiled TypeScript in dist/.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('quarry is not built yet: run `npm run build` (or `npm start`) in the repository first.\n');
  process.exit(1);
}
await import(entry.href);
