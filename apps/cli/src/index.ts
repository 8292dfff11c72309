export { runCli } from './commands.js';
export type { Io } from './io.js';
export { startAll, type StartOptions } from './start.js';
export { migrateAll, APP_ROLE, INDEXER_ROLE } from './migrations.js';
